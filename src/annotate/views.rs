//! What the page is sent: the session, a page of the queue, one sample with its agreement,
//! and the progress of every annotator. Plain data built from the [`Workspace`].

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::prefill::Draft;
use super::workspace::Workspace;
use goldgate_core::sample::task::Role;
use goldgate_core::sample::{DiscussionNote, Review};
use goldgate_core::suite::agreement::{message_marks, Agreement, AgreementBuilder};

/// Largest page of the queue.
pub const MAX_PER_PAGE: usize = 200;
/// Default page size of the queue.
pub const PER_PAGE: usize = 50;

#[derive(Serialize)]
pub struct Session {
    pub annotator: String,
    pub suite: SuiteInfo,
    pub id_pattern: String,
    pub min_kappa: f64,
    pub prefill: Option<String>,
    pub enums: BTreeMap<&'static str, &'static [&'static str]>,
    pub tasks: BTreeMap<String, TaskInfo>,
}

#[derive(Serialize)]
pub struct SuiteInfo {
    pub name: String,
    pub root: String,
    pub samples: usize,
}

#[derive(Serialize)]
pub struct TaskInfo {
    pub fields: Vec<FieldInfo>,
}

#[derive(Serialize)]
pub struct FieldInfo {
    pub name: String,
    pub kind: &'static str,
    pub values: Vec<String>,
}

/// The queue's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Suite,
    Todo,
    Disagreement,
}

/// Which samples the queue lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    All,
    Todo,
    Labelled,
    Skipped,
    Discussion,
}

#[derive(Serialize)]
pub struct QueuePage {
    pub total: usize,
    pub page: usize,
    pub per_page: usize,
    pub pages: usize,
    pub items: Vec<QueueItem>,
}

#[derive(Serialize)]
pub struct QueueItem {
    pub id: String,
    pub kind: &'static str,
    pub domain: String,
    pub difficulty: &'static str,
    pub task: Option<String>,
    pub status: &'static str,
    pub discussion: usize,
    pub annotators: Vec<String>,
    pub kappa: Option<f64>,
    pub disagreement: Option<f64>,
    pub promoted: bool,
    pub has_draft: bool,
}

#[derive(Serialize)]
pub struct SampleView {
    pub id: String,
    pub kind: &'static str,
    pub domain: String,
    pub difficulty: &'static str,
    pub tags: Vec<String>,
    pub task: Option<String>,
    pub file: String,
    pub line: Option<usize>,
    pub fingerprint: String,
    pub conversation: Value,
    pub user_input: Option<String>,
    pub text: Option<String>,
    pub reference_srs: Option<String>,
    pub requirements: Option<Vec<Value>>,
    pub labels: Value,
    pub annotations: Value,
    pub mine: Option<Value>,
    pub discussion: Vec<DiscussionNote>,
    pub review: Option<Review>,
    pub draft: Option<Draft>,
    pub agreement: SampleAgreement,
    pub position: Position,
}

#[derive(Serialize)]
pub struct SampleAgreement {
    /// Per annotator, per message: whether any of their requirements names it as a source.
    pub marks: BTreeMap<String, Vec<bool>>,
    #[serde(flatten)]
    pub kappa: Agreement,
}

#[derive(Serialize)]
pub struct Position {
    pub index: usize,
    pub total: usize,
    pub prev: Option<String>,
    pub next: Option<String>,
}

#[derive(Serialize)]
pub struct Progress {
    pub annotators: Vec<AnnotatorProgress>,
    pub current: String,
    pub discussion: usize,
    pub promoted: usize,
    pub samples: usize,
    pub agreement: Agreement,
    pub min_kappa: f64,
    pub meets_bar: Option<bool>,
}

#[derive(Serialize)]
pub struct AnnotatorProgress {
    pub name: String,
    pub labelled: usize,
    pub skipped: usize,
    pub todo: usize,
}

impl Workspace {
    pub fn session(&self) -> Session {
        let root = &self.suite.root;
        let enums: BTreeMap<&'static str, &'static [&'static str]> =
            goldgate_core::kinds::label_shapes()
                .iter()
                .flat_map(|shape| shape.enums().iter().copied())
                .collect();
        let tasks = self
            .suite
            .config
            .tasks
            .iter()
            .map(|task| {
                let fields = task
                    .fields
                    .iter()
                    .map(|f| FieldInfo {
                        name: f.name.clone(),
                        kind: match f.role {
                            Role::Span => "span",
                            Role::Label => "label",
                        },
                        values: f.values.clone(),
                    })
                    .collect();
                (task.name.clone(), TaskInfo { fields })
            })
            .collect();
        Session {
            annotator: self.options.annotator.clone(),
            suite: SuiteInfo {
                // The suite's own name (suite.toml), else its directory's.
                name: self.suite.config.name.clone().unwrap_or_else(|| {
                    root.canonicalize()
                        .ok()
                        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                        .unwrap_or_else(|| root.display().to_string())
                }),
                root: root.display().to_string(),
                samples: self.entries.len(),
            },
            id_pattern: self.options.id_pattern.as_str().to_string(),
            min_kappa: self.options.min_kappa,
            prefill: self
                .options
                .prefill
                .as_ref()
                .map(|p| p.display().to_string()),
            enums,
            tasks,
        }
    }

    /// The current annotator's status of sample `index`.
    fn status(&self, index: usize) -> &'static str {
        if self.labelled(index) {
            "labelled"
        } else if self.skipped.contains(&self.entries[index].sample.id) {
            "skipped"
        } else {
            "todo"
        }
    }

    pub fn queue(&self, order: Order, show: Show, page: usize, per_page: usize) -> QueuePage {
        let per_page = per_page.clamp(1, MAX_PER_PAGE);
        let mut indexes: Vec<usize> = (0..self.entries.len())
            .filter(|&i| match show {
                Show::All => true,
                Show::Todo => self.status(i) == "todo",
                Show::Labelled => self.status(i) == "labelled",
                Show::Skipped => self.status(i) == "skipped",
                Show::Discussion => !self.entries[i].sample.discussion.is_empty(),
            })
            .collect();
        match order {
            Order::Suite => {}
            Order::Todo => indexes.sort_by_key(|&i| match self.status(i) {
                "todo" => 0,
                "skipped" => 1,
                _ => 2,
            }),
            Order::Disagreement => indexes.sort_by(|&a, &b| {
                let (da, db) = (self.entries[a].disagreement, self.entries[b].disagreement);
                db.partial_cmp(&da).unwrap_or(std::cmp::Ordering::Equal)
            }),
        }
        let total = indexes.len();
        let pages = total.div_ceil(per_page).max(1);
        let page = page.clamp(1, pages);
        let items = indexes
            .into_iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .map(|i| self.queue_item(i))
            .collect();
        QueuePage {
            total,
            page,
            per_page,
            pages,
            items,
        }
    }

    fn queue_item(&self, index: usize) -> QueueItem {
        let entry = &self.entries[index];
        let s = &entry.sample;
        QueueItem {
            id: s.id.clone(),
            kind: s.kind.as_str(),
            domain: s.domain.clone(),
            difficulty: s.difficulty.as_str(),
            task: s.task.as_ref().map(|t| t.name.clone()),
            status: self.status(index),
            discussion: s.discussion.len(),
            annotators: s.annotations.iter().map(|a| a.annotator.clone()).collect(),
            kappa: entry.agreement.headline,
            disagreement: entry.disagreement,
            promoted: s.review.is_some(),
            has_draft: self.drafts.contains_key(&s.id),
        }
    }

    pub fn sample_view(&self, index: usize) -> SampleView {
        let entry = &self.entries[index];
        let s = &entry.sample;
        let me = &self.options.annotator;
        let marks = message_marks(s)
            .into_iter()
            .map(|(name, marks)| (name.to_string(), marks))
            .collect();
        let id_at = |i: Option<usize>| {
            i.and_then(|i| self.entries.get(i))
                .map(|e| e.sample.id.clone())
        };
        let mine = s.annotations.iter().find(|a| a.annotator == *me);
        SampleView {
            id: s.id.clone(),
            kind: s.kind.as_str(),
            domain: s.domain.clone(),
            difficulty: s.difficulty.as_str(),
            tags: s.tags.clone(),
            task: s.task.as_ref().map(|t| t.name.clone()),
            file: self.relative(&entry.path).display().to_string(),
            line: entry.line,
            fingerprint: entry.fingerprint.clone(),
            conversation: serde_json::to_value(&s.conversation).unwrap_or_default(),
            user_input: s.user_input.clone(),
            text: s.text.clone(),
            reference_srs: s.reference_srs.clone(),
            requirements: s.written.requirements.clone(),
            labels: serde_json::to_value(&s.labels).unwrap_or_default(),
            annotations: serde_json::to_value(&s.annotations).unwrap_or_default(),
            mine: mine.map(|a| serde_json::to_value(a).unwrap_or_default()),
            discussion: s.discussion.clone(),
            review: s.review.clone(),
            draft: self.drafts.get(&s.id).cloned(),
            agreement: SampleAgreement {
                marks,
                kappa: entry.agreement.clone(),
            },
            position: Position {
                index,
                total: self.entries.len(),
                prev: id_at(index.checked_sub(1)),
                next: id_at(Some(index + 1)),
            },
        }
    }

    pub fn progress(&self) -> Progress {
        let me = &self.options.annotator;
        let mut labelled: BTreeMap<&str, usize> = BTreeMap::from([(me.as_str(), 0)]);
        let mut builder = AgreementBuilder::default();
        for entry in &self.entries {
            builder.add(&entry.sample);
            for a in &entry.sample.annotations {
                *labelled.entry(a.annotator.as_str()).or_default() += 1;
            }
        }
        let samples = self.entries.len();
        let annotators = labelled
            .into_iter()
            .map(|(name, labelled)| {
                let skipped = match name == me {
                    true => (0..samples)
                        .filter(|&i| self.status(i) == "skipped")
                        .count(),
                    false => 0,
                };
                AnnotatorProgress {
                    name: name.to_string(),
                    labelled,
                    skipped,
                    todo: samples - labelled - skipped,
                }
            })
            .collect();
        let agreement = builder.finish();
        let count = |f: &dyn Fn(&goldgate_core::sample::Sample) -> bool| {
            self.entries.iter().filter(|e| f(&e.sample)).count()
        };
        Progress {
            annotators,
            current: me.clone(),
            discussion: count(&|s| !s.discussion.is_empty()),
            promoted: count(&|s| s.review.is_some()),
            samples,
            meets_bar: agreement.headline.map(|k| k >= self.options.min_kappa),
            agreement,
            min_kappa: self.options.min_kappa,
        }
    }
}
