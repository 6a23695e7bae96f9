//! Untrusted text made inert for each place goldgate writes it: the terminal and CI logs
//! ([`inert`], which every [`crate::output::Reporter`] line goes through), inline Markdown,
//! code spans and fenced blocks (the PR comment and the job summary), HTML, XML (JUnit) and
//! the values of GitHub workflow commands. Sample ids, metric and group names, messages,
//! answers and whole verdict files can come from a pipeline, a suite or a fork, so every
//! renderer escapes them here, in one way:
//!
//! - control characters never pass through raw: C0 (but newline and tab where a format keeps
//!   lines) and DEL become their visible Unicode Control Pictures (ESC `␛`, BEL `␇`, NUL `␀`,
//!   CR `␍`, newline `␊` in one-line fields, DEL `␡`), C1 (U+0080–U+009F) becomes `�`;
//! - bidirectional controls never pass through raw either, so text cannot be shown in
//!   another order than it is stored ("Trojan Source"): the embeddings and overrides
//!   (U+202A–U+202E), the isolates (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C)
//!   become `�`;
//! - nothing reads as a workflow command to the Actions runner, which acts on a line that
//!   starts with `::` (after blanks) and on `##[` anywhere: a zero-width space goes after the
//!   first character of each;
//! - each format's own syntax is escaped (Markdown punctuation, mentions, HTML and XML
//!   entities, the `%`-escapes of workflow commands).

use std::borrow::Cow;

/// A zero-width space: splits `@name`, `::` and `##[` without changing what people see.
const ZWSP: char = '\u{200b}';

/// The visible stand-in for a control character (C0, DEL, C1, a bidirectional control);
/// `None` for any other.
pub fn picture(c: char) -> Option<char> {
    match c {
        '\0'..='\u{1f}' => char::from_u32(0x2400 + c as u32),
        '\u{7f}' => Some('\u{2421}'),
        '\u{80}'..='\u{9f}' => Some('\u{fffd}'),
        c if is_bidi_control(c) => Some('\u{fffd}'),
        _ => None,
    }
}

/// A character that changes the order text is shown in: an embedding or override
/// (U+202A–U+202E), an isolate (U+2066–U+2069) or a mark (U+200E, U+200F, U+061C).
pub fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}'
    )
}

fn pictures(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let escaped = |c: char| picture(c).filter(|_| !(keep_lines && (c == '\n' || c == '\t')));
    if !text.chars().any(|c| escaped(c).is_some()) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(|c| escaped(c).unwrap_or(c)).collect())
}

/// Multi-line text for a terminal, a log, a `<pre>` or a code block: control characters as
/// pictures (newline and tab kept), and no line the Actions runner would take for a command.
pub fn inert(text: &str) -> Cow<'_, str> {
    let text = pictures(text, true);
    if !text.contains("::") && !text.contains("##[") {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split_inclusive('\n') {
        let rest = line.trim_start();
        out.push_str(&line[..line.len() - rest.len()]);
        let rest = match rest.strip_prefix("::") {
            Some(after) => {
                out.push(':');
                out.push(ZWSP);
                out.push(':');
                after
            }
            None => rest,
        };
        out.push_str(&rest.replace("##[", "#\u{200b}#["));
    }
    Cow::Owned(out)
}

/// A one-line field (a name, an id, an enum value, a message): [`inert`], with newlines and
/// tabs as pictures too, so it can never start a line.
pub fn one_line(text: &str) -> Cow<'_, str> {
    match inert(text) {
        Cow::Borrowed(b) => pictures(b, false),
        Cow::Owned(o) => Cow::Owned(pictures(&o, false).into_owned()),
    }
}

/// Inline Markdown (a table cell, a list item, a heading): one line, with nothing Markdown
/// or HTML acts on: `&`, `<`, `>` as entities, a zero-width space after `@` (no mention),
/// and a backslash before every other character Markdown gives a meaning to.
pub fn markdown_inline(text: &str) -> String {
    let text = one_line(text);
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' => {
                out.push('@');
                out.push(ZWSP);
            }
            '|' | '`' | '[' | ']' | '*' | '_' | '\\' | '#' | '~' | '$' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// The longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    text.split(|x| x != c).map(str::len).max().unwrap_or(0)
}

/// `text` in code style on one line (a metric name, a sample id): a plain code span when
/// the text holds nothing a code span shows oddly or a reader could mistake (a backtick, a
/// table's `|`, `<`, `>`, `&`, `@`, a blank at either end), else an HTML `<code>` element
/// around [`markdown_inline`] text, so even raw-looking HTML or a mention never appears.
pub fn markdown_code(text: &str) -> String {
    let text = one_line(text);
    let plain = !text.is_empty()
        && text.trim() == text
        && !text.contains(['`', '|', '<', '>', '&', '@', ZWSP]);
    match plain {
        true => format!("`{text}`"),
        false => format!("<code>{}</code>", markdown_inline(&text)),
    }
}

/// A fenced code block its content cannot close: a backtick fence longer than any run of
/// backticks or tildes in the content, which is [`inert`].
pub fn markdown_fence(content: &str, lang: &str) -> String {
    let content = inert(content);
    let longest = longest_run(&content, '`').max(longest_run(&content, '~'));
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{}\n{content}\n{fence}", one_line(lang))
}

/// Text for HTML (an element's content or a quoted attribute): [`inert`], with `&`, `<`,
/// `>`, `"` and `'` as entities.
pub fn html(text: &str) -> String {
    let text = inert(text);
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            _ => out.push(c),
        }
    }
    out
}

/// HTML inside a Markdown document (a `<summary>` of the PR comment): one line, [`html`],
/// and no mention.
pub fn markdown_html(text: &str) -> String {
    html(&one_line(text)).replace('@', "@\u{200b}")
}

/// XML character data or a quoted attribute value: [`inert`] (which also keeps out every
/// character XML 1.0 cannot hold), the five predefined entities, and the noncharacters
/// U+FFFE and U+FFFF as `�`.
pub fn xml(text: &str) -> String {
    let text = inert(text);
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            _ => out.push(c),
        }
    }
    out
}

/// A one-line XML attribute value (attribute values lose their newlines to normalisation).
pub fn xml_attribute(text: &str) -> String {
    xml(&one_line(text))
}

/// The message of a workflow command (`::error::MESSAGE`): [`inert`], then GitHub's escapes
/// for command data (`%`, CR, LF), so it stays on its line.
pub fn workflow_data(text: &str) -> String {
    inert(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property of a workflow command (`title=VALUE`): one line, then GitHub's escapes for
/// properties (`%`, CR, LF, `:` and `,`).
pub fn workflow_property(text: &str) -> String {
    one_line(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
        .replace(':', "%3A")
        .replace(',', "%2C")
}

/// A whole workflow command line: `::LEVEL title=TITLE::MESSAGE` and a newline.
pub fn workflow_command(level: &str, title: &str, message: &str) -> String {
    format!(
        "::{level} title={}::{}\n",
        workflow_property(title),
        workflow_data(message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "a\u{1b}[31m\u{7}\0\u{9b}\u{7f}\r\n  ::error::x ##[warning]y\tz";

    #[test]
    fn control_characters_become_visible_and_lines_cannot_start_commands() {
        assert_eq!(
            inert(HOSTILE),
            "a␛[31m␇␀�␡␍\n  :\u{200b}:error::x #\u{200b}#[warning]y\tz"
        );
        assert_eq!(
            one_line(HOSTILE),
            "a␛[31m␇␀�␡␍␊  :\u{200b}:error::x #\u{200b}#[warning]y␉z"
        );
        assert!(matches!(inert("plain: text\n"), Cow::Borrowed(_)));
        assert_eq!(
            inert("id \u{202e}1-QER\u{202c} \u{2066}a\u{2069}\u{200e}\u{200f}\u{61c} שלום"),
            "id �1-QER� �a���� שלום",
            "bidirectional controls, not right-to-left text"
        );
        assert!(matches!(one_line("plain"), Cow::Borrowed(_)));
        assert_eq!(
            inert("a::b\n::c"),
            "a::b\n:\u{200b}:c",
            "only at a line start"
        );
    }

    #[test]
    fn markdown_is_escaped_for_prose_code_spans_and_fences() {
        let safe = markdown_inline("@octocat <img src=x> | `x` [l](u) ~~~\n#1 $x$");
        assert_eq!(
            safe,
            "@\u{200b}octocat &lt;img src=x&gt; \\| \\`x\\` \\[l\\](u) \\~\\~\\~␊\\#1 \\$x\\$"
        );
        assert_eq!(markdown_code("run.error_rate"), "`run.error_rate`");
        assert_eq!(markdown_code("x `` y"), "<code>x \\`\\` y</code>");
        assert_eq!(
            markdown_code("a|b\nc <img>"),
            "<code>a\\|b␊c &lt;img&gt;</code>"
        );
        assert_eq!(markdown_code("@octocat"), "<code>@\u{200b}octocat</code>");
        assert_eq!(markdown_code(""), "<code></code>");
        let block = markdown_fence("```\n~~~~~\n::x", "diff");
        assert!(
            block.starts_with("``````diff\n") && block.ends_with("\n``````"),
            "{block}"
        );
        assert!(block.contains("\n:\u{200b}:x\n"), "{block}");
    }

    #[test]
    fn html_xml_and_workflow_commands() {
        assert_eq!(html("<b a='1'>&\u{1b}"), "&lt;b a=&#x27;1&#x27;&gt;&amp;␛");
        assert_eq!(markdown_html("@x <y>\n"), "@\u{200b}x &lt;y&gt;␊");
        assert_eq!(
            xml("a<b & \"c\" 'd'>\u{1}\u{fffe}"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;␁�"
        );
        assert_eq!(xml_attribute("a\nb"), "a␊b");
        assert_eq!(workflow_data("50% done\nnext\r"), "50%25 done%0Anext␍");
        assert_eq!(workflow_property("a:b,c\n%"), "a%3Ab%2Cc␊%25");
        assert_eq!(
            workflow_command("error", "goldgate: x", "m\n::warning::y"),
            "::error title=goldgate%3A x::m%0A:\u{200b}:warning::y\n"
        );
    }
}
