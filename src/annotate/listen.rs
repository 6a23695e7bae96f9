//! The connections of `goldgate annotate`: each accepted TCP connection is served over
//! HTTP/1.1 (hyper) by the router of [`super::server`], under [`Limits`] that keep clients
//! from holding the server: at most `max_connections` are open at once (more wait in the
//! system's queue until one closes); a connection must send a request's headers within
//! `request_timeout` of opening (or of the previous answer), and must take each part of an
//! answer within that time, or it is closed. Request bodies are read within the same time
//! by the handlers ([`super::server`]).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tokio::time::Sleep;

/// How long a client may take, and how many may be connected at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest a client may take to send a request's headers, to send its body, or to
    /// take a part of the answer; a connection idle for this long is closed too.
    pub request_timeout: Duration,
    /// The most connections served at once.
    pub max_connections: usize,
}

/// Serve `router` on `listener` within `limits` until `shutdown` resolves; then stop
/// accepting and let the open connections finish their current request (each within the
/// request timeout).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let slots = limits.max_connections.max(1);
    let free = Arc::new(Semaphore::new(slots));
    let (stop, stopping) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = Arc::clone(&free).acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of file descriptors, or a connection reset before it was
                    // accepted: wait a moment (open connections close within the request
                    // timeout) and accept again.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let io = TokioIo::new(Stalls::new(stream, limits.request_timeout));
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(limits.request_timeout);
            let connection = http.serve_connection(io, service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = stopping.wait_for(|stop| *stop) => {}
            }
            connection.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(limits.request_timeout, connection).await;
        });
    }
    let _ = stop.send(true);
    let all = u32::try_from(slots).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(limits.request_timeout * 2, free.acquire_many(all)).await;
}

/// A connection whose writes fail once the client has taken nothing for `limit`: a client
/// that stops reading an answer cannot hold its connection open.
struct Stalls<T> {
    inner: T,
    limit: Duration,
    /// Set while a write waits for the client.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<T> Stalls<T> {
    fn new(inner: T, limit: Duration) -> Self {
        Stalls {
            inner,
            limit,
            deadline: None,
        }
    }

    /// After a write that could not proceed: pending until the deadline, then an error.
    fn waiting<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        let limit = self.limit;
        let deadline = self
            .deadline
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client took nothing of the answer for too long",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn progress<R>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>> {
        match polled {
            Poll::Pending => self.waiting(cx),
            ready => {
                self.deadline = None;
                ready
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Stalls<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Stalls<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.progress(cx, polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.progress(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_flush(cx);
        this.progress(cx, polled)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.progress(cx, polled)
    }
}
