//! The one place output leaves the program: results to stdout, notes and errors to stderr.
//! The library never prints; commands hand their rendered text to a [`Reporter`].

use std::io::Write;

use crate::error::Error;

/// Where a command's results and notes go. A closed pipe (e.g. `| head`) is not an error.
pub struct Reporter<'a> {
    out: Box<dyn Write + 'a>,
    err: Box<dyn Write + 'a>,
}

impl<'a> Reporter<'a> {
    pub fn new(out: impl Write + 'a, err: impl Write + 'a) -> Self {
        Reporter {
            out: Box::new(out),
            err: Box::new(err),
        }
    }

    /// Results (stdout).
    pub fn out(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    /// Notes and progress (stderr).
    pub fn note(&mut self, text: &str) {
        let _ = self.err.write_all(text.as_bytes());
        let _ = self.err.flush();
    }

    /// An error (stderr).
    pub fn error(&mut self, error: &Error) {
        self.note(&format!("error: {error}\n"));
    }
}
