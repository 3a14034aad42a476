/** Which client a transcript came from; submitted as the `source:<client>` tag. */
export type SourceClient = 'claude-code' | 'openclaw' | 'gemini-cli' | 'codex' | 'plain';

export type Role = 'user' | 'assistant' | 'system' | 'tool';
export type MessageKind = 'text' | 'thinking' | 'tool_use' | 'tool_result';

export interface Message {
  role: Role;
  kind: MessageKind;
  text: string;
  /** Tool name for tool_use; for tool_result, the name of the call it answers when known. */
  tool?: string;
  /** tool_result only: the client marked the result as an error. */
  is_error?: boolean;
}

/** One transcript in the shape every reader produces and the pipeline consumes. */
export interface Conversation {
  source: SourceClient;
  messages: Message[];
}

/** Something a reader skipped or cut, reported instead of thrown so nothing crashes on bad input. */
export interface ReadIssue {
  kind: 'malformed_line' | 'binary' | 'invalid_utf8' | 'truncated' | 'changed_while_reading' | 'unreadable';
  /** 1-based line number for line-oriented formats. */
  line?: number;
  message: string;
}

export interface ReadResult {
  conversation: Conversation;
  issues: ReadIssue[];
}
