export { ClaudeCodeParser, readClaudeCode } from './claude-code.js';
export { OpenClawMemoryParser, OpenClawSessionParser, readOpenClawMemory, readOpenClawSession } from './openclaw.js';
export { GeminiSessionParser } from './gemini.js';
export { CodexRolloutParser } from './codex.js';
export { PlainTextParser, readPlainText } from './plain.js';
export { type FileReadResult, type ReadFileOptions, type TranscriptFormat, readTranscriptFile } from './file.js';
export type { LineParser } from './line-parser.js';
