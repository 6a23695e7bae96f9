//! One scripted HTTP/1.1 server on 127.0.0.1 for every test that needs a peer (a pipeline
//! behind `--http`, GitHub's REST API, a release download): it parses each request (method,
//! target, headers, body), asks the test's handler for the response, and keeps connections
//! alive as HTTP/1.1 clients expect. It stops when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A request as the server read it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The request target: path and query.
    pub target: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first header of that (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A response to send.
#[derive(Clone, Debug)]
pub struct Response {
    /// Status line after `HTTP/1.1 `, e.g. `200 OK`.
    pub status: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Send only this many bytes of the body (its whole length announced), then close the
    /// connection: an answer cut short.
    pub cut_after: Option<usize>,
}

impl Response {
    pub fn new(status: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status: status.to_string(),
            headers: Vec::new(),
            body: body.into(),
            cut_after: None,
        }
    }

    /// A JSON body with its content type.
    pub fn json(status: &str, body: &serde_json::Value) -> Response {
        Response::new(status, body.to_string()).with_header("Content-Type", "application/json")
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

/// The requests a [`MockServer::recording`] server read.
#[derive(Clone, Default)]
pub struct RequestLog(Arc<Mutex<Vec<Request>>>);

impl RequestLog {
    /// A copy of the requests so far.
    pub fn requests(&self) -> Vec<Request> {
        self.0.lock().unwrap().clone()
    }
}

/// A running server.
pub struct MockServer {
    pub port: u16,
    stop: Arc<AtomicBool>,
}

impl MockServer {
    /// Serve every request with `handler` on a thread per connection.
    pub fn start(handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> MockServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let (handler, stopping) = (Arc::new(handler), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let handler = handler.clone();
                std::thread::spawn(move || serve(stream, &*handler));
            }
        });
        MockServer { port, stop }
    }

    /// [`MockServer::start`], also keeping every request it read, in the order it read them.
    pub fn recording(
        handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) -> (MockServer, RequestLog) {
        let log = RequestLog::default();
        let kept = log.clone();
        let server = MockServer::start(move |request| {
            kept.0.lock().unwrap().push(request.clone());
            handler(request)
        });
        (server, log)
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port)); // wake the accept loop
    }
}

fn serve(mut stream: TcpStream, handler: &dyn Fn(&Request) -> Response) {
    let Ok(clone) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(clone);
    while let Some(request) = read_request(&mut reader) {
        let close = request
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let response = handler(&request);
        let mut head = format!("HTTP/1.1 {}\r\n", response.status);
        for (name, value) in &response.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n", response.body.len()));
        if close {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        let sent = &response.body[..response
            .cut_after
            .unwrap_or(usize::MAX)
            .min(response.body.len())];
        if stream.write_all(head.as_bytes()).is_err() || stream.write_all(sent).is_err() {
            return;
        }
        if close || response.cut_after.is_some() {
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        target,
        headers,
        body,
    })
}
