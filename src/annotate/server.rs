//! The HTTP side of `goldgate annotate` (axum): the page (index.html, its style sheet and
//! its script modules, embedded in the binary and served from a fixed table, [`ASSETS`],
//! and each registered kind's form, [`kind_forms`]) and the JSON API over the
//! [`Workspace`], behind the guards every request passes — the Host header must name this
//! server (a web page elsewhere cannot rebind a name to it), the access token when bound
//! beyond loopback, JSON bodies only, at most [`MAX_BODY`] bytes arriving within the
//! request timeout, and a strict Content-Security-Policy on every response. Ids come from
//! the client, never paths: what does not name a sample of the suite is a 404.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::Router;
use serde_json::Value;

use super::kind_forms;
use super::refusal::Refusal;
use super::views::{Order, Show, PER_PAGE};
use super::workspace::Workspace;

/// Largest request body accepted.
pub const MAX_BODY: usize = 1 << 20;
/// The cookie that carries the access token after the first page load.
const TOKEN_COOKIE: &str = "goldgate_token";
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const JS: &str = "text/javascript; charset=utf-8";

/// Every file the page loads besides index.html and the kinds' forms
/// ([`kind_forms::modules`]): (path, content type, text), each embedded at build time. Each
/// path is a route of its own; no path from a request ever reaches the file system.
pub const ASSETS: &[(&str, &str, &str)] = &[
    (
        "/app.css",
        "text/css; charset=utf-8",
        include_str!("assets/app.css"),
    ),
    ("/js/main.js", JS, include_str!("assets/js/main.js")),
    ("/js/api.js", JS, include_str!("assets/js/api.js")),
    ("/js/checks.js", JS, include_str!("assets/js/checks.js")),
    ("/js/dom.js", JS, include_str!("assets/js/dom.js")),
    ("/js/fields.js", JS, include_str!("assets/js/fields.js")),
    ("/js/form.js", JS, include_str!("assets/js/form.js")),
    (
        "/js/label-check.js",
        JS,
        include_str!("assets/js/label-check.js"),
    ),
    (
        "/js/label-edit.js",
        JS,
        include_str!("assets/js/label-edit.js"),
    ),
    (
        "/js/label-form.js",
        JS,
        include_str!("assets/js/label-form.js"),
    ),
    (
        "/js/label-model.js",
        JS,
        include_str!("assets/js/label-model.js"),
    ),
    (
        "/js/label-requirement.js",
        JS,
        include_str!("assets/js/label-requirement.js"),
    ),
    (
        "/js/label-save.js",
        JS,
        include_str!("assets/js/label-save.js"),
    ),
    (
        "/js/label-view.js",
        JS,
        include_str!("assets/js/label-view.js"),
    ),
    ("/js/queue.js", JS, include_str!("assets/js/queue.js")),
    ("/js/review.js", JS, include_str!("assets/js/review.js")),
    (
        "/js/section-lists.js",
        JS,
        include_str!("assets/js/section-lists.js"),
    ),
    (
        "/js/section-requirements.js",
        JS,
        include_str!("assets/js/section-requirements.js"),
    ),
    (
        "/js/section-tuple-table.js",
        JS,
        include_str!("assets/js/section-tuple-table.js"),
    ),
    ("/js/shared.js", JS, include_str!("assets/js/shared.js")),
    ("/js/state.js", JS, include_str!("assets/js/state.js")),
    ("/js/text.js", JS, include_str!("assets/js/text.js")),
];

/// What every handler shares.
pub struct App {
    pub workspace: Mutex<Workspace>,
    /// Required on every request when bound beyond loopback.
    pub token: Option<String>,
    /// The Host header values that name this server (lower case); shared beyond loopback,
    /// any IP address with [`App::port`] names it too.
    pub hosts: Vec<String>,
    /// The port the server listens on.
    pub port: u16,
    /// The longest a request body may take to arrive.
    pub request_timeout: std::time::Duration,
    /// The time promotions are stamped with (RFC 3339, UTC).
    pub now: fn() -> String,
}

/// The router, with its guards.
pub fn router(app: Arc<App>) -> Router {
    let mut router = Router::new().route("/", get(index));
    for &(path, content_type, text) in ASSETS {
        router = router.route(path, get(move || async move { asset(text, content_type) }));
    }
    for (path, text) in kind_forms::modules() {
        let text = text.as_str();
        router = router.route(path, get(move || async move { asset(text, JS) }));
    }
    router
        .route("/api/session", get(session))
        .route("/api/queue", get(queue))
        .route("/api/progress", get(progress))
        .route("/api/sample/{id}", get(sample))
        .route("/api/sample/{id}/annotation", put(save_annotation))
        .route("/api/sample/{id}/skip", post(skip))
        .route("/api/sample/{id}/discussion", post(discussion))
        .route("/api/sample/{id}/promote", post(promote))
        .fallback(|| async { refused(Refusal::NotFound("no such page".into())) })
        .method_not_allowed_fallback(|| async {
            (
                StatusCode::METHOD_NOT_ALLOWED,
                axum::Json(serde_json::json!({"error": "method_not_allowed", "message": "this address does not take that method"})),
            )
        })
        .layer(middleware::from_fn_with_state(Arc::clone(&app), guard))
        .with_state(app)
}

fn asset(text: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], text).into_response()
}

async fn index(State(app): State<Arc<App>>, Query(q): Query<HashMap<String, String>>) -> Response {
    let mut response = asset(kind_forms::index_html(), "text/html; charset=utf-8");
    // The token arrived in the URL (the guard checked it): keep it in a cookie so the
    // page's own requests carry it.
    if let (Some(token), Some(_)) = (&app.token, q.get("token")) {
        let cookie = format!("{TOKEN_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/");
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, v);
        }
    }
    response
}

/// The guards every request passes, and the headers every response carries.
async fn guard(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase);
    let mut refusal = None;
    if !host.as_deref().is_some_and(|h| names_us(&app, h)) {
        refusal = Some((
            StatusCode::MISDIRECTED_REQUEST,
            "wrong_host",
            "this server answers to its own address only",
        ));
    } else if let Some(token) = &app.token {
        if !token_given(headers, request.uri().query(), token) {
            refusal = Some((
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "open the URL goldgate annotate printed: it carries the access token",
            ));
        }
    }
    if refusal.is_none() && ![Method::GET, Method::HEAD].contains(request.method()) {
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(';')
                    .next()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
            });
        let origin_ok = match (
            headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()),
            &host,
        ) {
            (None, _) => true,
            (Some(origin), Some(host)) => origin.eq_ignore_ascii_case(&format!("http://{host}")),
            (Some(_), None) => false,
        };
        if !json {
            refusal = Some((
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "send JSON with Content-Type: application/json",
            ));
        } else if !origin_ok {
            refusal = Some((
                StatusCode::FORBIDDEN,
                "forbidden",
                "requests from other sites are refused",
            ));
        }
    }
    let mut response = match refusal {
        Some((status, code, message)) => (
            status,
            axum::Json(serde_json::json!({"error": code, "message": message})),
        )
            .into_response(),
        None => next.run(request).await,
    };
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Whether the Host header `host` (lower case) names this server: one of its names, or,
/// shared beyond loopback, any IP address with its port (a page elsewhere can point a name
/// of its own at this machine, never an address).
fn names_us(app: &App, host: &str) -> bool {
    app.hosts.iter().any(|h| h == host)
        || (app.token.is_some()
            && host
                .parse::<std::net::SocketAddr>()
                .is_ok_and(|a| a.port() == app.port))
}

/// Whether the request carries the token: in the URL, the cookie or the
/// `X-Goldgate-Token` header. Compared in constant time.
fn token_given(headers: &HeaderMap, query: Option<&str>, token: &str) -> bool {
    let from_query = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .filter_map(|p| p.strip_prefix("token="));
    let from_cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().strip_prefix(TOKEN_COOKIE)?.strip_prefix('='));
    let from_header = headers
        .get("x-goldgate-token")
        .and_then(|v| v.to_str().ok());
    from_query
        .chain(from_cookie)
        .chain(from_header)
        .any(|given| same(given.as_bytes(), token.as_bytes()))
}

fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn refused(refusal: Refusal) -> Response {
    let status =
        StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, axum::Json(refusal.body())).into_response()
}

fn ok<T: serde::Serialize>(value: T) -> Response {
    axum::Json(value).into_response()
}

/// Run `f` on the workspace (saves are serialised by the lock).
fn with<T>(app: &App, f: impl FnOnce(&mut Workspace) -> Result<T, Refusal>) -> Result<T, Refusal> {
    let mut workspace = app.workspace.lock().map_err(|_| {
        Refusal::Internal(
            "an earlier request failed while saving; restart goldgate annotate".into(),
        )
    })?;
    f(&mut workspace)
}

fn respond<T: serde::Serialize>(result: Result<T, Refusal>) -> Response {
    match result {
        Ok(value) => ok(value),
        Err(refusal) => refused(refusal),
    }
}

async fn session(State(app): State<Arc<App>>) -> Response {
    respond(with(&app, |w| Ok(w.session())))
}

async fn queue(State(app): State<Arc<App>>, Query(q): Query<HashMap<String, String>>) -> Response {
    let number = |key: &str| match q.get(key).map(|v| v.parse::<usize>()) {
        None => Ok(None),
        Some(Ok(n)) if n > 0 => Ok(Some(n)),
        Some(_) => Err(Refusal::BadRequest(format!(
            "`{key}` must be a whole number from 1"
        ))),
    };
    let (page, per_page) = match (number("page"), number("per_page")) {
        (Ok(page), Ok(per_page)) => (page, per_page),
        (Err(refusal), _) | (_, Err(refusal)) => return refused(refusal),
    };
    let order = match q.get("order").map(String::as_str) {
        None | Some("suite") => Order::Suite,
        Some("todo") => Order::Todo,
        Some("disagreement") => Order::Disagreement,
        Some(other) => {
            return refused(Refusal::BadRequest(format!(
                "unknown order `{other}`: suite, todo or disagreement"
            )))
        }
    };
    let show = match q.get("show").map(String::as_str) {
        None | Some("all") => Show::All,
        Some("todo") => Show::Todo,
        Some("labelled") => Show::Labelled,
        Some("skipped") => Show::Skipped,
        Some("discussion") => Show::Discussion,
        Some(other) => {
            return refused(Refusal::BadRequest(format!(
                "unknown filter `{other}`: all, todo, labelled, skipped or discussion"
            )))
        }
    };
    respond(with(&app, |w| {
        w.sync();
        Ok(w.queue(order, show, page.unwrap_or(1), per_page.unwrap_or(PER_PAGE)))
    }))
}

async fn progress(State(app): State<Arc<App>>) -> Response {
    respond(with(&app, |w| {
        w.sync();
        Ok(w.progress())
    }))
}

async fn sample(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    respond(with(&app, |w| {
        let index = w.index(&id)?;
        w.refresh(index)?;
        Ok(w.sample_view(index))
    }))
}

/// The request body as JSON: at most [`MAX_BODY`] bytes, an object, arriving
/// within the request timeout.
async fn json_body(app: &App, body: Body) -> Result<Value, Refusal> {
    let read = tokio::time::timeout(app.request_timeout, axum::body::to_bytes(body, MAX_BODY));
    let bytes: Bytes = read
        .await
        .map_err(|_| {
            Refusal::Timeout(format!(
                "the request body did not arrive within {} s",
                app.request_timeout.as_secs_f64()
            ))
        })?
        .map_err(|_| Refusal::TooLarge(format!("the request is larger than {MAX_BODY} bytes")))?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(Refusal::BadRequest("the body must be a JSON object".into())),
        Err(e) => Err(Refusal::BadRequest(format!("the body is not JSON: {e}"))),
    }
}

fn field<'a>(body: &'a Value, key: &str) -> Result<&'a str, Refusal> {
    body.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| Refusal::BadRequest(format!("the body needs a string `{key}`")))
}

/// Run a write, then answer with the sample as it now is.
fn written(
    app: &App,
    id: &str,
    write: impl FnOnce(&mut Workspace) -> Result<(), Refusal>,
) -> Result<super::views::SampleView, Refusal> {
    with(app, |w| {
        write(w)?;
        let index = w.index(id)?;
        Ok(w.sample_view(index))
    })
}

async fn save_annotation(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Body,
) -> Response {
    let body = json_body(&app, body).await;
    respond(body.and_then(|body| {
        let fingerprint = field(&body, "fingerprint")?;
        let annotation = body.get("annotation").unwrap_or(&Value::Null);
        written(&app, &id, |w| {
            w.save_annotation(&id, fingerprint, annotation)
        })
    }))
}

async fn skip(State(app): State<Arc<App>>, Path(id): Path<String>, body: Body) -> Response {
    let body = json_body(&app, body).await;
    respond(body.and_then(|_| {
        with(&app, |w| {
            let index = w.index(&id)?;
            w.skipped.insert(id.clone());
            Ok(serde_json::json!({ "next": w.next_todo(index) }))
        })
    }))
}

async fn discussion(State(app): State<Arc<App>>, Path(id): Path<String>, body: Body) -> Response {
    let body = json_body(&app, body).await;
    respond(body.and_then(|body| {
        let (fingerprint, note) = (field(&body, "fingerprint")?, field(&body, "note")?);
        written(&app, &id, |w| w.set_discussion(&id, fingerprint, note))
    }))
}

async fn promote(State(app): State<Arc<App>>, Path(id): Path<String>, body: Body) -> Response {
    let body = json_body(&app, body).await;
    let at = (app.now)();
    respond(body.and_then(|body| {
        let fingerprint = field(&body, "fingerprint")?;
        let from: Vec<String> = body
            .get("from")
            .and_then(|f| serde_json::from_value(f.clone()).ok())
            .ok_or_else(|| {
                Refusal::BadRequest("`from` must be a list of annotator names".into())
            })?;
        let labels = body.get("labels").unwrap_or(&Value::Null);
        written(&app, &id, |w| {
            w.promote(&id, fingerprint, &from, labels, at)
        })
    }))
}
