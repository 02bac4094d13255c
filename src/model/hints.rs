//! The view hints vocabulary: what a tool's result view should look like (`[tools.NAME] hints`,
//! the refinement phrases, and the context given to the llm generator).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// View hints for the builtin generator (and context for the llm generator).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Hints {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<ViewKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub y: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// A field name, optionally followed by ` asc` or ` desc` (`"date desc"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<ThemeHint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub density: Option<Density>,
    /// The largest file the page's file fields read, in bytes (`[generate] max_file_bytes`
    /// unless the tool sets its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_file_bytes: Option<u64>,
}

impl Hints {
    pub fn is_empty(&self) -> bool {
        *self == Hints::default()
    }

    /// These hints with `over` laid on top: a setting of `over` wins where it says something
    /// (a widget's hints over its tool's).
    pub fn overlaid_with(&self, over: &Hints) -> Hints {
        let mut h = self.clone();
        if over.view.is_some() {
            h.view = over.view;
        }
        if over.x.is_some() {
            h.x = over.x.clone();
        }
        if !over.y.is_empty() {
            h.y = over.y.clone();
        }
        if !over.hidden.is_empty() {
            h.hidden = over.hidden.clone();
        }
        for (k, v) in &over.labels {
            h.labels.insert(k.clone(), v.clone());
        }
        if over.sort.is_some() {
            h.sort = over.sort.clone();
        }
        if over.theme.is_some() {
            h.theme = over.theme;
        }
        if over.density.is_some() {
            h.density = over.density;
        }
        if over.max_file_bytes.is_some() {
            h.max_file_bytes = over.max_file_bytes;
        }
        h
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ViewKind {
    Table,
    Line,
    Bar,
    Cards,
    List,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ThemeHint {
    Light,
    Dark,
    Host,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Density {
    Compact,
    Comfortable,
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}
