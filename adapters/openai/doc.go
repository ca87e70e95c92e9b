// Package openai is a speech recognizer adapter for engines behind an
// OpenAI-compatible POST /v1/audio/transcriptions endpoint.
package openai
