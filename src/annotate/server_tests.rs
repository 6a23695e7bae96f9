//! The server over real TCP connections, in-process on a copy of the example suite: the
//! Host guard in both modes, and clients that try to hold the server — connections that
//! never finish their headers, bodies that never arrive, answers nobody reads — under
//! short [`Limits`].

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use regex::Regex;

use super::listen::{self, Limits};
use super::server::{router, App};
use super::{Options, Workspace};
use goldgate_core::metrics::scoring::DEFAULT_ID_PATTERN;

/// A server on 127.0.0.1, stopped when dropped.
struct Running {
    address: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// Serve a copy of the requirements example within `limits`; with `shared`, as when bound
/// beyond loopback (every request needs [`TOKEN`]).
fn start(shared: bool, limits: Limits) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/requirements");
    super::tests::copy(&example, dir.path());
    let workspace = Workspace::open(Options {
        suite: dir.path().join("suite"),
        annotator: "a1".into(),
        id_pattern: Regex::new(DEFAULT_ID_PATTERN).unwrap(),
        min_kappa: 0.75,
        max_sample_bytes: 16 << 20,
        prefill: None,
    })
    .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let address = listener.local_addr().unwrap();
    let port = address.port();
    let app = Arc::new(App {
        workspace: Mutex::new(workspace),
        token: shared.then(|| TOKEN.to_string()),
        hosts: vec![format!("127.0.0.1:{port}"), format!("localhost:{port}")],
        port,
        request_timeout: limits.request_timeout,
        now: || "2026-01-01T00:00:00Z".into(),
    });
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let runtime = goldgate_client::runtime::build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let shutdown = async move {
                let _ = stopped.await;
            };
            listen::serve(listener, router(app), limits, shutdown).await;
        });
    });
    Running {
        address,
        stop: Some(stop),
        thread: Some(thread),
        _dir: dir,
    }
}

fn limits(secs: f64, max_connections: usize) -> Limits {
    Limits {
        request_timeout: Duration::from_secs_f64(secs),
        max_connections,
    }
}

/// Send `request` on a new connection and read the answer to its end: its status (0 when
/// the connection closed without one) and text.
fn exchange(server: &Running, request: &str, wait: Duration) -> (u16, String) {
    let mut stream = TcpStream::connect(server.address).unwrap();
    stream.set_read_timeout(Some(wait)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

fn get(server: &Running, path: &str, host: &str, extra: &str) -> u16 {
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n");
    exchange(server, &request, Duration::from_secs(20)).0
}

/// Whether the server closed `stream` within `wait` (reading gives its end, or a reset).
fn closed_within(stream: &mut TcpStream, wait: Duration) -> bool {
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false
            }
            Err(_) => return true,
        }
    }
}

/// Connections that sent part of a request's headers and nothing more.
fn half_open(server: &Running, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut stream = TcpStream::connect(server.address).unwrap();
            stream
                .write_all(b"GET /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                .unwrap();
            stream
        })
        .collect()
}

#[test]
fn connections_that_never_finish_their_headers_are_closed_and_others_are_served_meanwhile() {
    let server = start(false, limits(2.0, 512));
    let host = format!("127.0.0.1:{}", server.address.port());
    let opened = Instant::now();
    let mut slow = half_open(&server, 300);
    // With 300 of them open, a request is answered at once, long before they time out.
    let asked = Instant::now();
    assert_eq!(get(&server, "/api/session", &host, ""), 200);
    assert!(
        asked.elapsed() < Duration::from_millis(1500),
        "answered after {:?}",
        asked.elapsed()
    );
    // Each is closed once the request timeout has passed, none before.
    for (i, stream) in slow.iter_mut().enumerate() {
        let left = Duration::from_secs(12).saturating_sub(opened.elapsed());
        assert!(
            closed_within(stream, left.max(Duration::from_millis(10))),
            "connection {i} is still open {:?} after it sent half a header",
            opened.elapsed()
        );
    }
    assert!(opened.elapsed() >= Duration::from_secs(2));
}

#[test]
fn beyond_the_connection_limit_a_request_waits_for_a_free_slot_and_is_served() {
    let server = start(false, limits(1.0, 4));
    let host = format!("127.0.0.1:{}", server.address.port());
    let mut slow = half_open(&server, 10);
    let asked = Instant::now();
    assert_eq!(get(&server, "/api/session", &host, ""), 200);
    // Served once the connections ahead of it timed out, four at a time.
    assert!(
        asked.elapsed() < Duration::from_secs(10),
        "answered after {:?}",
        asked.elapsed()
    );
    for stream in &mut slow {
        assert!(closed_within(stream, Duration::from_secs(10)));
    }
    // An idle connection (nothing sent) is closed after the timeout as well.
    let mut idle = TcpStream::connect(server.address).unwrap();
    assert!(closed_within(&mut idle, Duration::from_secs(10)));
}

#[test]
fn a_body_that_does_not_arrive_in_time_is_refused_with_408() {
    let server = start(false, limits(1.0, 16));
    let port = server.address.port();
    let mut stream = TcpStream::connect(server.address).unwrap();
    let head = format!(
        "PUT /api/sample/ext-001/annotation HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"fingerprint\":"
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    assert!(answer.contains("\"timeout\""), "{answer}");
}

#[test]
fn a_client_that_never_reads_its_answers_is_disconnected() {
    let server = start(false, limits(1.0, 16));
    let port = server.address.port();
    let mut stream = TcpStream::connect(server.address).unwrap();
    // Many requests at once, none of their answers read: the answers fill the connection's
    // buffers and the server's writes stall.
    let request = format!("GET /js/review.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    let asked = request.repeat(4000);
    stream
        .set_write_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let _ = stream.write_all(asked.as_bytes());
    std::thread::sleep(Duration::from_secs(4));
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answers = Vec::new();
    let ended = stream.read_to_end(&mut answers);
    let count = String::from_utf8_lossy(&answers)
        .matches("HTTP/1.1 200")
        .count();
    assert!(
        ended.is_ok()
            || ended
                .as_ref()
                .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
        "the connection was closed: {ended:?}"
    );
    assert!(count < 4000, "all {count} answers were sent");
}

#[test]
fn a_request_naming_another_host_is_refused_with_421_with_or_without_a_token() {
    for shared in [false, true] {
        let server = start(shared, limits(5.0, 16));
        let port = server.address.port();
        let token = format!("X-Goldgate-Token: {TOKEN}\r\n");
        let extra = if shared { token.as_str() } else { "" };
        for host in [
            "evil.example".to_string(),
            format!("evil.example:{port}"),
            format!("127.0.0.1.evil.example:{port}"),
            format!("127.0.0.1:{}", port.wrapping_add(1)),
        ] {
            assert_eq!(
                get(&server, "/api/session", &host, extra),
                421,
                "shared: {shared}, Host: {host}"
            );
        }
        for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}")] {
            assert_eq!(get(&server, "/api/session", &host, extra), 200, "{host}");
        }
        // Shared beyond loopback, this machine's other addresses name it too (an address
        // cannot be rebound to another server); on loopback only its own names do.
        let other = format!("192.0.2.7:{port}");
        let want = if shared { 200 } else { 421 };
        assert_eq!(get(&server, "/api/session", &other, extra), want, "{other}");
        if shared {
            let host = format!("127.0.0.1:{port}");
            assert_eq!(get(&server, "/api/session", &host, ""), 401, "no token");
        }
    }
}

/// The body of a GET of `path` on loopback: its status and text.
fn body(server: &Running, path: &str) -> (u16, String) {
    let host = format!("127.0.0.1:{}", server.address.port());
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    let (status, answer) = exchange(server, &request, Duration::from_secs(20));
    let text = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, text.to_string())
}

/// Every registered kind's annotate form is served at `/js/kinds/<kind>.js` as the kind
/// holds it, the page's table `/js/kinds.js` imports each by its kind's name, and the page
/// asks for each at once.
#[test]
fn every_registered_kinds_form_is_served_and_listed_by_its_name() {
    let server = start(false, limits(10.0, 16));
    let (status, table) = body(&server, "/js/kinds.js");
    assert_eq!(status, 200, "/js/kinds.js");
    let (_, index) = body(&server, "/");
    for kind in goldgate_core::kinds::ALL {
        let name = kind.name();
        let path = format!("/js/kinds/{name}.js");
        let (status, text) = body(&server, &path);
        assert_eq!(status, 200, "{path}");
        assert_eq!(text, kind.annotate_form(), "{path}");
        assert!(
            table.contains(&format!(" from './kinds/{name}.js';\n")),
            "/js/kinds.js does not import {path}:\n{table}"
        );
        assert!(
            table.contains(&format!("[\"{name}\", ")),
            "/js/kinds.js does not list {name}:\n{table}"
        );
        assert!(
            index.contains(&format!(r#"<link rel="modulepreload" href="{path}">"#)),
            "index.html does not preload {path}"
        );
    }
    assert_eq!(body(&server, "/js/kinds/nope.js").0, 404);
}
