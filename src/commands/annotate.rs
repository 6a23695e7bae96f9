//! `goldgate annotate`: serve the labelling page and say where it is.

use crate::annotate::{serve, Listening};
use crate::output::Reporter;
use crate::settings::AnnotateSettings;
use goldgate_core::error::{Exit, Result};

pub fn annotate(s: AnnotateSettings, reporter: &mut Reporter<'_>) -> Result<Exit> {
    if let Some(config) = &s.named_by {
        reporter.note(&format!(
            "suite: {} (named by {})\n",
            s.options.suite.display(),
            config.display()
        ));
    }
    let annotator = s.options.annotator.clone();
    serve(s.options, s.address, s.limits, |at: &Listening| {
        if at.shared {
            reporter.note(
                "warning: the page is shared beyond this machine: anyone with the URL below can read the suite and write labels in it; it is served over plain HTTP, so use it on a network you trust only\n",
            );
        }
        reporter.out(&format!("goldgate annotate: {}\n", at.url));
        reporter.note(&format!(
            "labelling {} as `{annotator}`; stop with Ctrl-C\n",
            goldgate_core::text::plural(at.samples, "sample")
        ));
    })?;
    Ok(Exit::Ok)
}
