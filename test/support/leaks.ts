/**
 * A stack frame in an answer: `at fn (file:line:col)` or `at file:line:col`. Each part is bounded, so the test runs in
 * linear time over a large one-line body (an unbounded `.+\(.*` took a second per test of GET /openapi.json's 165 kB).
 */
export const STACK_FRAME = /\bat [^\n()]{0,200}\(\S+:\d+:\d+\)|\bat \S+:\d+:\d+/;
