//! Gemini `contents` and their repair before sending (REFERENCE §5.4 "Sanitising", steps 1–6,
//! with the [FIX]es: synthetic responses carry the call's id and name, and partially answered
//! turns get a response for each unanswered call). One addition: after step 6 we merge once
//! more, since removing an emptied content can leave two same-role contents side by side.
//!
//! Owns the content model and the sanitising passes only. It must not convert provider
//! messages (that is `request`) nor do HTTP.

use serde_json::{json, Map, Value};

/// The response sent for a call that never got one (step 4).
pub const NO_RESPONSE: &str = "[no response available]";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeminiRole {
    User,
    Model,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    /// An image sent inline: `inlineData {mimeType, data}` (base64).
    Image {
        mime_type: String,
        data: String,
    },
    Call {
        id: String,
        name: String,
        args: Value,
        thought: bool,
        signature: String,
    },
    Response {
        id: String,
        name: String,
        response: Value,
    },
}

impl Part {
    pub fn is_response(&self) -> bool {
        matches!(self, Part::Response { .. })
    }

    pub fn to_json(&self) -> Value {
        match self {
            Part::Text(text) => json!({"text": text}),
            // camelCase like every other field this client sends (the REST API's JSON
            // mapping of the proto also accepts `inline_data`/`mime_type`).
            Part::Image { mime_type, data } => {
                json!({"inlineData": {"mimeType": mime_type, "data": data}})
            }
            Part::Call {
                id,
                name,
                args,
                thought,
                signature,
            } => {
                let mut call = Map::new();
                if !id.is_empty() {
                    call.insert("id".into(), json!(id));
                }
                call.insert("name".into(), json!(name));
                call.insert("args".into(), args.clone());
                let mut part = Map::new();
                part.insert("functionCall".into(), Value::Object(call));
                if *thought {
                    part.insert("thought".into(), json!(true));
                }
                if !signature.is_empty() {
                    part.insert("thoughtSignature".into(), json!(signature));
                }
                Value::Object(part)
            }
            Part::Response { id, name, response } => {
                let mut r = Map::new();
                if !id.is_empty() {
                    r.insert("id".into(), json!(id));
                }
                r.insert("name".into(), json!(name));
                r.insert("response".into(), response.clone());
                json!({"functionResponse": Value::Object(r)})
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Content {
    pub role: GeminiRole,
    pub parts: Vec<Part>,
}

impl Content {
    pub fn new(role: GeminiRole, parts: Vec<Part>) -> Self {
        Self { role, parts }
    }

    fn has_calls(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Call { .. }))
    }

    fn only_responses(&self) -> bool {
        !self.parts.is_empty() && self.parts.iter().all(Part::is_response)
    }

    pub fn to_json(&self) -> Value {
        let role = match self.role {
            GeminiRole::User => "user",
            GeminiRole::Model => "model",
        };
        json!({"role": role, "parts": self.parts.iter().map(Part::to_json).collect::<Vec<_>>()})
    }
}

/// Whether a response `(rid, rname)` answers a call `(cid, cname)`: equal ids and names, or
/// one side's id or name is empty (REFERENCE §5.4 step 6: `(id, name)`, `("", name)`, `(id, "")`).
fn answers(rid: &str, rname: &str, cid: &str, cname: &str) -> bool {
    let id_ok = rid == cid || rid.is_empty() || cid.is_empty();
    let name_ok = rname == cname || rname.is_empty() || cname.is_empty();
    id_ok && name_ok && !(rid.is_empty() && rname.is_empty())
}

fn merge_same_role(contents: Vec<Content>) -> Vec<Content> {
    let mut out: Vec<Content> = Vec::with_capacity(contents.len());
    for c in contents {
        match out.last_mut() {
            Some(last) if last.role == c.role => last.parts.extend(c.parts),
            _ => out.push(c),
        }
    }
    out
}

/// Steps 1–6 of REFERENCE §5.4, in order.
pub fn sanitize(contents: Vec<Content>) -> Vec<Content> {
    // 1. Leading contents that hold only function responses answer nothing we still send.
    let skip = contents.iter().take_while(|c| c.only_responses()).count();
    let contents: Vec<Content> = contents.into_iter().skip(skip).collect();

    // 2. Merge consecutive same-role contents.
    let mut contents = merge_same_role(contents);

    // 3. The conversation must start with the user.
    if contents
        .first()
        .is_some_and(|c| c.role == GeminiRole::Model)
    {
        contents.insert(
            0,
            Content::new(GeminiRole::User, vec![Part::Text("[continue]".into())]),
        );
    }

    // 4. Every call gets a response in the next content [FIX: with its id and name, also
    //    when only some calls of the turn were answered].
    let mut i = 0;
    while i < contents.len() {
        if contents[i].role == GeminiRole::Model && contents[i].has_calls() {
            let calls: Vec<(String, String)> = contents[i]
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Call { id, name, .. } => Some((id.clone(), name.clone())),
                    _ => None,
                })
                .collect();
            let next_is_user = contents
                .get(i + 1)
                .is_some_and(|c| c.role == GeminiRole::User);
            let existing: Vec<(String, String)> = if next_is_user {
                contents[i + 1]
                    .parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::Response { id, name, .. } => Some((id.clone(), name.clone())),
                        _ => None,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            // Each existing response answers at most one call.
            let mut used = vec![false; existing.len()];
            let mut synthetic = Vec::new();
            for (cid, cname) in &calls {
                let hit = existing
                    .iter()
                    .enumerate()
                    .position(|(k, (rid, rname))| !used[k] && answers(rid, rname, cid, cname));
                match hit {
                    Some(k) => used[k] = true,
                    None => {
                        tracing::debug!(id = %cid, name = %cname, "Gemini call without a response; adding one");
                        synthetic.push(Part::Response {
                            id: cid.clone(),
                            name: cname.clone(),
                            response: json!({"result": NO_RESPONSE}),
                        });
                    }
                }
            }
            if !synthetic.is_empty() {
                if next_is_user && !existing.is_empty() {
                    // Responses first (existing, then the synthetic ones), then the rest.
                    let next = &mut contents[i + 1];
                    let (mut responses, rest): (Vec<Part>, Vec<Part>) =
                        std::mem::take(&mut next.parts)
                            .into_iter()
                            .partition(Part::is_response);
                    responses.extend(synthetic);
                    responses.extend(rest);
                    next.parts = responses;
                } else {
                    contents.insert(i + 1, Content::new(GeminiRole::User, synthetic));
                }
            }
        }
        i += 1;
    }

    // 5. Merge again (a synthetic content may sit before a user content).
    let mut contents = merge_same_role(contents);

    // 6. Drop responses that answer no surviving call, then contents left empty.
    let calls: Vec<(String, String)> = contents
        .iter()
        .flat_map(|c| c.parts.iter())
        .filter_map(|p| match p {
            Part::Call { id, name, .. } => Some((id.clone(), name.clone())),
            _ => None,
        })
        .collect();
    for c in &mut contents {
        c.parts.retain(|p| match p {
            Part::Response { id, name, .. } => {
                let keep = calls.iter().any(|(cid, cname)| answers(id, name, cid, cname));
                if !keep {
                    tracing::warn!(%id, %name, "Gemini function response without a matching call; dropped");
                }
                keep
            }
            _ => true,
        });
    }
    contents.retain(|c| !c.parts.is_empty());
    // Ours: removing an emptied content can leave two same-role contents side by side.
    merge_same_role(contents)
}

#[cfg(test)]
mod tests {
    use super::*;
    use GeminiRole::{Model as M, User as U};

    fn text(t: &str) -> Part {
        Part::Text(t.into())
    }
    fn call(id: &str, name: &str) -> Part {
        Part::Call {
            id: id.into(),
            name: name.into(),
            args: json!({}),
            thought: false,
            signature: String::new(),
        }
    }
    fn resp(id: &str, name: &str) -> Part {
        Part::Response {
            id: id.into(),
            name: name.into(),
            response: json!({"ok": true}),
        }
    }
    fn c(role: GeminiRole, parts: Vec<Part>) -> Content {
        Content::new(role, parts)
    }
    /// (role, part count) per content.
    fn shape(contents: &[Content]) -> Vec<(GeminiRole, usize)> {
        contents.iter().map(|c| (c.role, c.parts.len())).collect()
    }

    #[test]
    fn acceptance_68_sanitising_roles_and_part_counts() {
        assert!(sanitize(vec![]).is_empty());
        assert_eq!(
            shape(&sanitize(vec![
                c(U, vec![text("a")]),
                c(M, vec![text("b")]),
                c(M, vec![text("c")])
            ])),
            [(U, 1), (M, 2)]
        );
        assert_eq!(
            shape(&sanitize(vec![
                c(U, vec![text("a")]),
                c(U, vec![text("b")]),
                c(M, vec![text("c")])
            ])),
            [(U, 2), (M, 1)]
        );
        let out = sanitize(vec![c(M, vec![text("m")])]);
        assert_eq!(shape(&out), [(U, 1), (M, 1)]);
        assert_eq!(out[0].parts, vec![text("[continue]")]);
        assert_eq!(
            shape(&sanitize(vec![
                c(U, vec![resp("x", "exec")]),
                c(U, vec![text("a")]),
                c(M, vec![text("b")])
            ])),
            [(U, 1), (M, 1)]
        );
        let out = sanitize(vec![
            c(U, vec![text("a")]),
            c(M, vec![call("c1", "exec")]),
            c(U, vec![text("next")]),
        ]);
        assert_eq!(shape(&out), [(U, 1), (M, 1), (U, 2)]);
        assert!(
            out[2].parts[0].is_response(),
            "the synthetic response comes before the text"
        );
        let out = sanitize(vec![
            c(U, vec![text("a")]),
            c(M, vec![call("ca", "a"), call("cb", "b")]),
            c(M, vec![text("done")]),
        ]);
        assert_eq!(shape(&out), [(U, 1), (M, 3), (U, 2)]);
        assert_eq!(
            out[2].parts,
            vec![
                Part::Response {
                    id: "ca".into(),
                    name: "a".into(),
                    response: json!({"result": NO_RESPONSE})
                },
                Part::Response {
                    id: "cb".into(),
                    name: "b".into(),
                    response: json!({"result": NO_RESPONSE})
                },
            ]
        );
    }

    #[test]
    fn acceptance_69_synthetic_responses_keep_the_call_id_and_survive_orphan_removal() {
        let out = sanitize(vec![
            c(U, vec![text("hi")]),
            c(M, vec![call("call_1", "exec")]),
            c(U, vec![text("more")]),
        ]);
        assert_eq!(
            out[2].parts[0],
            Part::Response {
                id: "call_1".into(),
                name: "exec".into(),
                response: json!({"result": NO_RESPONSE})
            }
        );
        // A response whose call is gone is removed, and a content left empty with it.
        let out = sanitize(vec![
            c(U, vec![text("hi")]),
            c(M, vec![text("thinking")]),
            c(U, vec![resp("call_gone", "exec")]),
            c(M, vec![text("ok")]),
        ]);
        assert_eq!(shape(&out), [(U, 1), (M, 2)]);
    }

    #[test]
    fn a_partially_answered_turn_gets_responses_for_the_unanswered_calls_only() {
        let out = sanitize(vec![
            c(U, vec![text("hi")]),
            c(M, vec![call("a", "x"), call("b", "y"), call("c", "z")]),
            c(U, vec![text("note"), resp("b", "y")]),
        ]);
        assert_eq!(shape(&out), [(U, 1), (M, 3), (U, 4)]);
        let ids: Vec<String> = out[2]
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Response { id, .. } => Some(id.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(ids, ["b", "a", "c"]);
        assert_eq!(out[2].parts[3], text("note"));
    }

    #[test]
    fn responses_match_calls_by_id_and_name_or_a_missing_side() {
        assert!(answers("c1", "exec", "c1", "exec"));
        assert!(answers("", "exec", "c1", "exec"));
        assert!(answers("c1", "", "c1", "exec"));
        assert!(!answers("c2", "exec", "c1", "exec"));
        assert!(!answers("c1", "read", "c1", "exec"));
        assert!(!answers("", "", "c1", "exec"));
    }

    #[test]
    fn calls_and_responses_serialise_with_their_ids_and_signatures() {
        let p = Part::Call {
            id: "call_x".into(),
            name: "x".into(),
            args: json!({"a": 1}),
            thought: true,
            signature: "c2ln".into(),
        };
        assert_eq!(
            p.to_json(),
            json!({"functionCall": {"id": "call_x", "name": "x", "args": {"a": 1}}, "thought": true, "thoughtSignature": "c2ln"})
        );
        assert_eq!(
            call("", "x").to_json(),
            json!({"functionCall": {"name": "x", "args": {}}})
        );
        assert_eq!(
            resp("i", "x").to_json(),
            json!({"functionResponse": {"id": "i", "name": "x", "response": {"ok": true}}})
        );
    }
}
