// Package whispercpp is a speech recognizer adapter for whisper.cpp's
// server (whisper-server) and its native POST /inference endpoint.
package whispercpp
