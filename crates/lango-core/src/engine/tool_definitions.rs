//! What the tool definitions cost: every model call carries the name, description and JSON
//! Schema of each tool on offer (a few MCP servers: thousands of tokens), beside the system
//! prompt and the history — shown in "What the model sees" so nothing sent is left uncounted.
//!
//! Owns that count. Providers wrap each definition a little differently; the bare
//! `{"name", "description", "parameters"}` JSON is counted, so the figure is approximate.

use serde_json::json;

use super::Engine;
use crate::provider::ToolSpec;
use crate::tokens::TokenCounter;

/// The tool definitions of the next request and their tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToolDefinitions {
    pub count: usize,
    pub tokens: usize,
}

/// What `specs` cost in a request.
pub fn cost(specs: &[ToolSpec], counter: &dyn TokenCounter) -> ToolDefinitions {
    let tokens = specs
        .iter()
        .map(|s| {
            let definition =
                json!({"name": s.name, "description": s.description, "parameters": s.parameters});
            counter.count(&definition.to_string())
        })
        .sum();
    ToolDefinitions {
        count: specs.len(),
        tokens,
    }
}

impl Engine {
    /// The tool definitions the next model call carries, and their tokens.
    pub fn tool_definitions(&self) -> ToolDefinitions {
        cost(
            &self.runner.next_tool_specs(),
            self.store.counter().as_ref(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One token per character: the count is then the JSON's length.
    #[derive(Debug)]
    struct Chars;
    impl TokenCounter for Chars {
        fn count(&self, text: &str) -> usize {
            text.chars().count()
        }
    }

    #[test]
    fn each_definition_counts_its_name_description_and_schema() {
        let specs = vec![
            ToolSpec {
                name: "files__read".into(),
                description: "Reads a file".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            },
            ToolSpec {
                name: "clock".into(),
                description: String::new(),
                parameters: json!({"type": "object"}),
            },
        ];
        let cost = cost(&specs, &Chars);
        assert_eq!(cost.count, 2);
        let expected = json!({"name": "files__read", "description": "Reads a file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}).to_string().len()
            + json!({"name": "clock", "description": "", "parameters": {"type": "object"}}).to_string().len();
        assert_eq!(cost.tokens, expected);
        assert_eq!(super::cost(&[], &Chars), ToolDefinitions::default());
    }
}
