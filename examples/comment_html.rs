//! A PR comment (`report.md`) as GitHub shows it, for the screenshots of docs/reports.md:
//! the Markdown parsed with pulldown-cmark (GitHub's extensions: tables, strikethrough, task
//! lists, alerts), written as HTML in a comment box styled like GitHub's, ```` ```diff ````
//! blocks with their lines coloured. The comment's own HTML (`<details>`, `<sub>`) passes through,
//! as GitHub lets it; text is escaped.
//!
//!   cargo run --example comment_html -- report.md comment.html

use pulldown_cmark::{
    Alignment, BlockQuoteKind, CodeBlockKind, Event, Options, Parser, Tag, TagEnd,
};

use goldgate_core::escape::html as esc;

const STYLE: &str = r#"
  body { margin: 0; padding: 24px; background: #fff; color: #1f2328; font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
  .comment { max-width: 880px; border: 1px solid #d1d9e0; border-radius: 6px; }
  .head { padding: 8px 16px; background: #f6f8fa; border-bottom: 1px solid #d1d9e0; border-radius: 6px 6px 0 0; color: #59636e; }
  .head strong { color: #1f2328; }
  .head .bot { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 7px; font-size: 12px; margin-left: 4px; }
  .body { padding: 16px; overflow-wrap: break-word; }
  .body > :first-child { margin-top: 0; }
  h1, h2, h3, h4 { margin: 24px 0 16px; font-weight: 600; line-height: 1.25; }
  h3 { font-size: 1.25em; }
  p, ul, ol, table, pre, details { margin: 0 0 16px; }
  ul, ol { padding-left: 2em; }
  li + li { margin-top: .25em; }
  table { border-collapse: collapse; display: block; width: max-content; max-width: 100%; overflow: auto; font-variant-numeric: tabular-nums; }
  th, td { padding: 6px 13px; border: 1px solid #d1d9e0; }
  th { font-weight: 600; }
  tr:nth-child(2n) { background: #f6f8fa; }
  code { padding: .2em .4em; font-size: 85%; background: rgba(129, 139, 152, .12); border-radius: 6px; font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; }
  pre { padding: 16px; background: #f6f8fa; border-radius: 6px; overflow: auto; font-size: 85%; line-height: 1.45; }
  pre code { padding: 0; background: none; font-size: 100%; }
  .gd { color: #82071e; background: #ffebe9; display: inline-block; min-width: 100%; }
  .gi { color: #116329; background: #dafbe1; display: inline-block; min-width: 100%; }
  .gu { color: #8250df; font-weight: 600; }
  .gh { color: #0550ae; font-weight: 600; }
  summary { cursor: pointer; }
  details > :not(summary) { margin-left: 0; }
  sub { font-size: 75%; color: #59636e; }
  hr { border: 0; border-top: 1px solid #d1d9e0; margin: 24px 0; }
  a { color: #0969da; text-decoration: none; }
  blockquote { margin: 0 0 16px; padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
  .alert { margin: 0 0 16px; padding: .5rem 1rem; border-left: .25em solid #0969da; }
  .alert > :last-child { margin-bottom: 0; }
  .alert-title { font-weight: 500; margin-bottom: 4px; display: flex; align-items: center; gap: 8px; }
  .alert.note .alert-title { color: #0969da; }
  .alert.tip { border-color: #1a7f37; } .alert.tip .alert-title { color: #1a7f37; }
  .alert.important { border-color: #8250df; } .alert.important .alert-title { color: #8250df; }
  .alert.warning { border-color: #9a6700; } .alert.warning .alert-title { color: #9a6700; }
  .alert.caution { border-color: #d1242f; } .alert.caution .alert-title { color: #d1242f; }
"#;

/// A ```` ```diff ```` block's lines, each coloured as GitHub colours them.
fn diff(code: &str) -> String {
    code.lines()
        .map(|line| {
            let class = if line.starts_with("+++") || line.starts_with("---") {
                "gh"
            } else {
                match line.chars().next() {
                    Some('+') => "gi",
                    Some('-') => "gd",
                    Some('@') => "gu",
                    _ => "",
                }
            };
            if class.is_empty() {
                esc(line)
            } else {
                format!("<span class=\"{class}\">{}</span>", esc(line))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The circled "i" GitHub puts before an alert's title.
const ICON: &str = r#"<svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true"><circle cx="8" cy="8" r="6.75" fill="none" stroke="currentColor" stroke-width="1.5"/><rect x="7.25" y="7" width="1.5" height="4.5" fill="currentColor"/><circle cx="8" cy="4.9" r=".9" fill="currentColor"/></svg>"#;

/// A GitHub alert (`> [!NOTE]` …): its style and title.
fn alert(kind: BlockQuoteKind) -> (&'static str, &'static str) {
    match kind {
        BlockQuoteKind::Note => ("note", "Note"),
        BlockQuoteKind::Tip => ("tip", "Tip"),
        BlockQuoteKind::Important => ("important", "Important"),
        BlockQuoteKind::Warning => ("warning", "Warning"),
        BlockQuoteKind::Caution => ("caution", "Caution"),
    }
}

fn render(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM;
    let mut out = String::new();
    let mut code: Option<(String, String)> = None;
    let mut aligns: Vec<Alignment> = Vec::new();
    let (mut in_head, mut cell) = (false, 0usize);
    for event in Parser::new_ext(markdown, options) {
        if let Some((_, text)) = &mut code {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let (lang, text) = code.take().unwrap_or_default();
                    let body = if lang == "diff" {
                        diff(&text)
                    } else {
                        esc(text.trim_end_matches('\n'))
                    };
                    out.push_str(&format!("<pre><code>{body}</code></pre>\n"));
                }
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(tag) => match tag {
                Tag::Paragraph => out.push_str("<p>"),
                Tag::Heading { level, .. } => out.push_str(&format!("<{level}>")),
                Tag::BlockQuote(None) => out.push_str("<blockquote>"),
                Tag::BlockQuote(Some(kind)) => {
                    let (class, title) = alert(kind);
                    out.push_str(&format!(
                        "<div class=\"alert {class}\"><p class=\"alert-title\">{ICON}{title}</p>"
                    ));
                }
                Tag::CodeBlock(kind) => {
                    let lang = match kind {
                        CodeBlockKind::Fenced(lang) => lang.to_string(),
                        CodeBlockKind::Indented => String::new(),
                    };
                    code = Some((lang, String::new()));
                }
                Tag::List(Some(start)) => out.push_str(&format!("<ol start=\"{start}\">")),
                Tag::List(None) => out.push_str("<ul>"),
                Tag::Item => out.push_str("<li>"),
                Tag::Table(a) => {
                    aligns = a;
                    out.push_str("<table>");
                }
                Tag::TableHead => {
                    in_head = true;
                    cell = 0;
                    out.push_str("<thead><tr>");
                }
                Tag::TableRow => {
                    cell = 0;
                    out.push_str("<tr>");
                }
                Tag::TableCell => {
                    let align = match aligns.get(cell) {
                        Some(Alignment::Right) => " align=\"right\"",
                        Some(Alignment::Center) => " align=\"center\"",
                        _ => "",
                    };
                    out.push_str(&format!("<{}{align}>", if in_head { "th" } else { "td" }));
                }
                Tag::Emphasis => out.push_str("<em>"),
                Tag::Strong => out.push_str("<strong>"),
                Tag::Strikethrough => out.push_str("<del>"),
                Tag::Link { dest_url, .. } => {
                    out.push_str(&format!("<a href=\"{}\">", esc(&dest_url)))
                }
                _ => {}
            },
            Event::End(end) => match end {
                TagEnd::Paragraph => out.push_str("</p>\n"),
                TagEnd::Heading(level) => out.push_str(&format!("</{level}>\n")),
                TagEnd::BlockQuote(None) => out.push_str("</blockquote>\n"),
                TagEnd::BlockQuote(Some(_)) => out.push_str("</div>\n"),
                TagEnd::List(true) => out.push_str("</ol>\n"),
                TagEnd::List(false) => out.push_str("</ul>\n"),
                TagEnd::Item => out.push_str("</li>\n"),
                TagEnd::Table => out.push_str("</tbody></table>\n"),
                TagEnd::TableHead => {
                    in_head = false;
                    out.push_str("</tr></thead><tbody>\n");
                }
                TagEnd::TableRow => out.push_str("</tr>\n"),
                TagEnd::TableCell => {
                    out.push_str(if in_head { "</th>" } else { "</td>" });
                    cell += 1;
                }
                TagEnd::Emphasis => out.push_str("</em>"),
                TagEnd::Strong => out.push_str("</strong>"),
                TagEnd::Strikethrough => out.push_str("</del>"),
                TagEnd::Link => out.push_str("</a>"),
                _ => {}
            },
            Event::Text(t) => out.push_str(&esc(&t)),
            Event::Code(t) => out.push_str(&format!("<code>{}</code>", esc(&t))),
            Event::Html(h) | Event::InlineHtml(h) => out.push_str(&h),
            Event::SoftBreak => out.push('\n'),
            Event::HardBreak => out.push_str("<br>\n"),
            Event::Rule => out.push_str("<hr>\n"),
            Event::TaskListMarker(done) => out.push_str(if done { "☑ " } else { "☐ " }),
            _ => {}
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = &args[..] else {
        eprintln!("usage: comment_html REPORT.md COMMENT.html");
        std::process::exit(2);
    };
    let markdown = std::fs::read_to_string(input).unwrap_or_else(|e| {
        eprintln!("cannot read {input}: {e}");
        std::process::exit(2);
    });
    let page = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>goldgate PR comment</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<div class=\"comment\"><div class=\"head\"><strong>github-actions</strong><span class=\"bot\">bot</span> commented</div>\n<div class=\"body\">\n{}</div></div>\n</body>\n</html>\n",
        render(&markdown)
    );
    if let Err(e) = std::fs::write(output, page) {
        eprintln!("cannot write {output}: {e}");
        std::process::exit(2);
    }
}
