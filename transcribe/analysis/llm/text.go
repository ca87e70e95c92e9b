package llm

// PlainText returns a model's free-form answer as plain text, the way
// the summary answers are cleaned: a <think> block, a code fence around
// the whole answer and a "Here is ...:" first line removed, then HTML
// and Markdown markup, control characters (other than newline and tab)
// and bidirectional overrides stripped (see plain). Lines are kept. For
// callers with prompts of their own (LeMUR's tasks, httpapi/lemur).
func PlainText(s string) string { return clean(s) }
