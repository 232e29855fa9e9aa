/**
 * A conversation's own model and settings, who wrote each reply and what it cost, and the
 * files attached to messages: mirrors of `lango_core::app::dto` (ConversationView, …),
 * `conversation::ReplyInfo` and `store::AttachmentRef` (camelCase). Re-exported by types.ts.
 */

/** A file attached to a message: stored once by content hash. */
export interface AttachmentInfo {
  hash: string;
  /** The file's name as the user had it (untrusted: render as text). */
  name: string;
  kind: 'image' | 'pdf' | 'text';
  mime: string;
  /** Bytes. */
  size: number;
  /** What it costs in the prompt. */
  tokenCount: number;
}

/** An attached image as sent to models (downscaled to at most 1568 px), for thumbnails. */
export interface AttachmentImage {
  mime: string;
  /** Base64. */
  data: string;
}

/** Who wrote an assistant reply, and what it cost (null when the provider gave no usage / no price is set). */
export interface ReplyInfo {
  provider: string;
  model: string;
  inputTokens: number | null;
  outputTokens: number | null;
  cost: number | null;
}

/** A conversation's own choices; null/absent = use the default from Settings. */
export interface ConversationSettings {
  provider?: string | null;
  model?: string | null;
  temperature?: number | null;
  maxTokens?: number | null;
  systemPrompt?: string | null;
}

/** What a conversation's next reply uses: its own choices over the defaults. */
export interface EffectiveSettings {
  provider: string;
  model: string;
  temperature: number;
  maxTokens: number;
  systemPrompt: string;
}

/** A configured provider; `defaultModel` "" = the vendor's default. */
export interface ProviderChoice {
  id: string;
  kind: string;
  defaultModel: string;
}

/** The tokens and cost of a conversation's replies (`cost` null when no reply had a price). */
export interface ConversationUsage {
  inputTokens: number;
  outputTokens: number;
  replies: number;
  cost: number | null;
  unpricedReplies: number;
}

export interface ConversationView {
  settings: ConversationSettings;
  effective: EffectiveSettings;
  providers: ProviderChoice[];
  usage: ConversationUsage;
}

/** A provider and one of its models ("" = the provider's default). */
export interface ModelChoice {
  provider: string;
  model: string;
}

/** USD per million tokens. */
export interface Price {
  input: number;
  output: number;
}
