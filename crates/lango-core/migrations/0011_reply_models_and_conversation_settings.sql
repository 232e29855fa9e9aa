-- Which model wrote each reply, and a conversation's own model and generation settings.
--
-- `reply` (messages and archived_messages, so compaction keeps it): a JSON object
-- {"provider","model","inputTokens"?,"outputTokens"?} on assistant replies — the provider id
-- and model the request went to, and the provider's own usage figures when it sent them.
-- NULL on every other row and on replies written before this version.
--
-- `sessions.chat_settings`: the conversation's overrides of the Settings defaults, a JSON
-- object {"provider"?,"model"?,"temperature"?,"maxTokens"?,"systemPrompt"?}; '{}' = defaults.
ALTER TABLE messages ADD COLUMN reply TEXT CHECK (reply IS NULL OR json_valid(reply));
ALTER TABLE archived_messages ADD COLUMN reply TEXT CHECK (reply IS NULL OR json_valid(reply));
ALTER TABLE sessions ADD COLUMN chat_settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(chat_settings));
