// Package adapters groups the speech recognizer adapters:
// adapters/pocketsphinx is the embedded default (Debian's libpocketsphinx,
// loaded at run time without cgo).
package adapters
