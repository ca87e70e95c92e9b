// Package diarize answers "who spoke when": speaker labels for words and
// turn-by-turn utterances.
package diarize
