//! Reading an export file: which app wrote it, and every conversation in it, converted.
//!
//! The file is parsed as a stream (serde_json over a `BufReader`): one conversation's JSON
//! is held at a time and converted at once, so a 100 MB export never sits in memory as a
//! JSON tree — only the converted text does. Each conversation says whether it is ChatGPT's
//! (`mapping`) or Claude's (`chat_messages`); a file mixing them, or holding anything else,
//! is refused. The whole file is read before anything is written, so a broken file imports
//! nothing.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::error::ImportError;
use super::model::{Conversation, Source};
use super::{chatgpt, claude, ImportProgress, ProgressFn};

/// Progress is reported at most once per this many bytes read.
const PROGRESS_BYTES: u64 = 1 << 20;

/// Every conversation of an export file, in the file's order.
#[derive(Debug, Clone, PartialEq)]
pub struct Export {
    pub source: Source,
    pub conversations: Vec<Conversation>,
}

/// Which export a conversation object is, by the fields only that app writes.
pub fn source_of(conversation: &Value) -> Option<Source> {
    let object = conversation.as_object()?;
    if object.contains_key("mapping") {
        Some(Source::ChatGpt)
    } else if object.contains_key("chat_messages") {
        Some(Source::Claude)
    } else {
        None
    }
}

/// Reads and converts the whole file (blocking: call it off the async runtime).
pub fn read_export(
    path: &Path,
    progress: &ProgressFn,
    cancel: &CancellationToken,
) -> Result<Export, ImportError> {
    let io = |source| ImportError::Io {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let total = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut reader = BufReader::with_capacity(1 << 16, file);
    check_start(path, &mut reader)?;
    let counting = Counting {
        inner: reader,
        read: 0,
        reported: 0,
        total,
        progress,
    };
    let mut de = serde_json::Deserializer::from_reader(counting);
    let mut failure = None;
    let seed = Conversations {
        path,
        cancel,
        failure: &mut failure,
    };
    let parsed = seed
        .deserialize(&mut de)
        .and_then(|export| de.end().map(|()| export));
    match (parsed, failure) {
        (_, Some(error)) => Err(error),
        (Ok(export), None) => match export {
            Some(export) => Ok(export),
            None => Err(ImportError::Empty {
                path: path.to_owned(),
            }),
        },
        (Err(e), None) => Err(json_error(path, &e)),
    }
}

/// Refuses a zip archive and anything that does not start as a JSON list, with words that say
/// so (serde_json's own message would be "expected value at line 1").
fn check_start(path: &Path, reader: &mut BufReader<File>) -> Result<(), ImportError> {
    let head = reader.fill_buf().map_err(|source| ImportError::Io {
        path: path.to_owned(),
        source,
    })?;
    if head.starts_with(b"PK\x03\x04") {
        return Err(ImportError::Zip {
            path: path.to_owned(),
        });
    }
    // A UTF-8 byte order mark (some editors add one) is not JSON: skip it.
    if head.starts_with(b"\xEF\xBB\xBF") {
        reader.consume(3);
        return check_start(path, reader);
    }
    match head.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => Ok(()),
        None if head.is_empty() => Err(ImportError::Empty {
            path: path.to_owned(),
        }),
        Some(b'{') => Err(ImportError::NotAnExport {
            path: path.to_owned(),
            why: "it holds one JSON object, where an export holds a list of conversations"
                .to_owned(),
        }),
        _ => Err(ImportError::NotAnExport {
            path: path.to_owned(),
            why: "it does not start with a list of conversations".to_owned(),
        }),
    }
}

fn json_error(path: &Path, e: &serde_json::Error) -> ImportError {
    if e.is_eof() {
        return ImportError::Truncated {
            path: path.to_owned(),
        };
    }
    if e.is_io() {
        return ImportError::Io {
            path: path.to_owned(),
            source: std::io::Error::other(e.to_string()),
        };
    }
    // serde_json appends " at line L column C"; the error has them separately.
    let text = e.to_string();
    let reason = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(reason, _)| reason)
        .to_owned();
    ImportError::NotJson {
        path: path.to_owned(),
        line: e.line(),
        column: e.column(),
        reason,
    }
}

/// A reader that reports how far it got.
struct Counting<'a, R> {
    inner: R,
    read: u64,
    reported: u64,
    total: u64,
    progress: &'a ProgressFn,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read - self.reported >= PROGRESS_BYTES || (n == 0 && self.read > self.reported) {
            self.reported = self.read;
            (self.progress)(ImportProgress::Reading {
                bytes_read: self.read,
                total_bytes: self.total.max(self.read),
            });
        }
        Ok(n)
    }
}

/// The top-level list, converted element by element.
struct Conversations<'a> {
    path: &'a Path,
    cancel: &'a CancellationToken,
    /// Set when a conversation could not be converted: the typed error behind serde's abort.
    failure: &'a mut Option<ImportError>,
}

impl<'de> DeserializeSeed<'de> for Conversations<'_> {
    /// None: the list was empty.
    type Value = Option<Export>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Conversations<'_> {
    type Value = Option<Export>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of conversations")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut source: Option<Source> = None;
        let mut conversations = Vec::new();
        let path: PathBuf = self.path.to_owned();
        let abort = |failure: &mut Option<ImportError>, error: ImportError| {
            *failure = Some(error);
            <A::Error as serde::de::Error>::custom("import aborted")
        };
        while let Some(value) = seq.next_element::<Value>()? {
            if self.cancel.is_cancelled() {
                return Err(abort(self.failure, ImportError::Cancelled));
            }
            let number = conversations.len() + 1;
            let Some(this) = source_of(&value) else {
                let why = if number == 1 {
                    "its first entry has neither ChatGPT's \"mapping\" nor Claude's \"chat_messages\"".to_owned()
                } else {
                    format!("entry {number} has neither ChatGPT's \"mapping\" nor Claude's \"chat_messages\"")
                };
                return Err(abort(self.failure, ImportError::NotAnExport { path, why }));
            };
            if let Some(first) = source.filter(|s| *s != this) {
                let why = format!(
                    "it mixes {} and {} conversations (entry {number})",
                    first.label(),
                    this.label()
                );
                return Err(abort(self.failure, ImportError::NotAnExport { path, why }));
            }
            source = Some(this);
            let title = ["title", "name"]
                .iter()
                .find_map(|k| value.get(k).and_then(Value::as_str))
                .unwrap_or("")
                .to_owned();
            let converted = match this {
                Source::ChatGpt => chatgpt::convert(value),
                Source::Claude => claude::convert(value),
            };
            match converted {
                Ok(c) => conversations.push(c),
                Err(reason) => {
                    let error = ImportError::BadConversation {
                        path,
                        number,
                        title,
                        reason,
                    };
                    return Err(abort(self.failure, error));
                }
            }
        }
        Ok(source.map(|source| Export {
            source,
            conversations,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &[u8]) -> Result<Export, ImportError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("conversations.json");
        std::fs::write(&path, text).unwrap();
        read_export(&path, &|_| {}, &CancellationToken::new())
    }

    #[test]
    fn a_zip_archive_is_refused_with_what_to_do() {
        let err = read(b"PK\x03\x04rest").unwrap_err();
        assert!(matches!(err, ImportError::Zip { .. }));
        assert!(err.to_string().contains("Unzip it"), "{err}");
    }

    #[test]
    fn broken_json_names_the_line_and_column() {
        let err = read(b"[\n {\"uuid\": \"a\",,}\n]").unwrap_err();
        match err {
            ImportError::NotJson { line, .. } => assert_eq!(line, 2),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read(b"[{\"uuid\": \"a\", \"chat_messages\": [").unwrap_err(),
            ImportError::Truncated { .. }
        ));
    }

    #[test]
    fn a_file_mixing_both_apps_is_refused() {
        let err =
            read(br#"[{"uuid":"a","chat_messages":[]},{"id":"b","mapping":{}}]"#).unwrap_err();
        assert!(
            err.to_string().contains("mixes Claude and ChatGPT"),
            "{err}"
        );
    }

    #[test]
    fn an_object_or_an_empty_list_is_not_an_export() {
        assert!(matches!(
            read(b"{\"a\": 1}").unwrap_err(),
            ImportError::NotAnExport { .. }
        ));
        assert!(matches!(
            read(b" [ ] ").unwrap_err(),
            ImportError::Empty { .. }
        ));
        assert!(matches!(read(b"").unwrap_err(), ImportError::Empty { .. }));
    }
}
