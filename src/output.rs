//! The one place output leaves the program: results to stdout, notes and errors to stderr.
//! The library never prints; commands hand their rendered text to a [`Reporter`]. Whatever
//! goes through it is made inert for a terminal and a CI log ([`goldgate_core::escape::inert`]): no
//! raw control character (an ANSI sequence, a bell) and no line the Actions runner would run
//! as a workflow command; goldgate's own workflow commands go through [`Reporter::command`].

use std::io::Write;

use goldgate_core::error::Error;
use goldgate_core::escape::inert;

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
        let _ = self.out.write_all(inert(text).as_bytes());
        let _ = self.out.flush();
    }

    /// Notes and progress (stderr).
    pub fn note(&mut self, text: &str) {
        let _ = self.err.write_all(inert(text).as_bytes());
        let _ = self.err.flush();
    }

    /// goldgate's own workflow commands (`::error title=…::…`), on stderr where the Actions
    /// runner reads them: built with [`goldgate_core::escape::workflow_command`], so every value in
    /// them is already escaped.
    pub fn command(&mut self, commands: &str) {
        let _ = self.err.write_all(commands.as_bytes());
        let _ = self.err.flush();
    }

    /// An error (stderr).
    pub fn error(&mut self, error: &Error) {
        self.note(&format!("error: {error}\n"));
    }
}
