// Package export turns a completed transcript into SRT and VTT captions,
// sentences, paragraphs and word-search results. Pure functions.
package export
