//! Settings of `goldgate annotate`: the suite (or the project naming it), the annotator,
//! where the page is served, the requirement id pattern from the project's rules, and the
//! run file whose answers become drafts.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use super::{max_sample_bytes, min_kappa, named_suite, rules, rules_file};
use crate::annotate::{Limits, Options};
use crate::cli;
use goldgate_core::error::Error;

/// The port `goldgate annotate` listens on unless told otherwise.
pub const PORT: u16 = 8741;
/// How long a client of `goldgate annotate` may take to send a request's headers or body,
/// or to take a part of an answer, before its connection is closed.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The most connections `goldgate annotate` serves at once (more wait until one closes).
pub const MAX_CONNECTIONS: usize = 512;
/// The longest annotator name accepted.
const MAX_NAME: usize = 64;

/// `goldgate annotate`.
#[derive(Clone, Debug)]
pub struct AnnotateSettings {
    /// The suite, the annotator and what the page checks.
    pub options: Options,
    /// Where the page is served.
    pub address: SocketAddr,
    /// How long clients may take, and how many may be connected.
    pub limits: Limits,
    /// The goldgate.toml that named the suite, when the argument was a project directory.
    pub named_by: Option<PathBuf>,
}

impl TryFrom<cli::AnnotateArgs> for AnnotateSettings {
    type Error = Error;

    fn try_from(a: cli::AnnotateArgs) -> Result<Self, Error> {
        let annotator = a.annotator.trim().to_string();
        if annotator.is_empty()
            || annotator.chars().count() > MAX_NAME
            || annotator.chars().any(char::is_control)
        {
            return Err(Error::usage(
                format!("--annotator {:?} is not a usable name", a.annotator),
                format!("give a short name without control characters (at most {MAX_NAME} characters), e.g. --annotator alice"),
            ));
        }
        let min_kappa = min_kappa(a.min_kappa)?;
        let dir = a.dir.unwrap_or_else(|| PathBuf::from("."));
        let named = named_suite(&dir)?;
        // The rules as every other command finds them: a configured file that is missing is
        // an error, not a silent fall back to the built-in pattern.
        let configured = named.config.check.thresholds.as_deref();
        let id_pattern = rules(rules_file(a.thresholds.as_deref(), configured).as_deref())?
            .scoring()
            .id_pattern;
        let host = a.host.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
        Ok(AnnotateSettings {
            options: Options {
                suite: named.dir,
                annotator,
                id_pattern,
                min_kappa,
                max_sample_bytes: max_sample_bytes(a.max_sample_bytes, &named.config)?,
                prefill: a.prefill,
            },
            address: SocketAddr::new(host, a.port.unwrap_or(PORT)),
            limits: Limits {
                request_timeout: REQUEST_TIMEOUT,
                max_connections: MAX_CONNECTIONS,
            },
            named_by: named.named_by,
        })
    }
}
