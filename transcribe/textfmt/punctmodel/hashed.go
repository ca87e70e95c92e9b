package punctmodel

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The question and casing classifiers share a file layout: gzip of the
// magic, the table's bits (uint32), the threshold (float32) and the
// hashed weights (float32), little-endian, then what the classifier adds
// (the casing classifier's forms).

// writeHashed writes the shared body to a new gzip stream on w, then
// calls rest (nil: nothing more) on its buffered writer, and closes it.
func writeHashed(w io.Writer, magic string, bits uint, threshold float32, weights []float32, rest func(*bufio.Writer) error) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(zw)
	for _, v := range []any{[]byte(magic), uint32(bits), threshold, weights} {
		if err := binary.Write(bw, binary.LittleEndian, v); err != nil {
			return err
		}
	}
	if rest != nil {
		if err := rest(bw); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// readHashed reads the shared body written by writeHashed; what names the
// classifier in errors. The reader it returns holds the rest.
func readHashed(r io.Reader, magic, what string) (bits uint, threshold float32, weights []float32, rest *bufio.Reader, err error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return 0, 0, nil, nil, fmt.Errorf("punctmodel: %s: %w", what, err)
	}
	br := bufio.NewReader(zr)
	le := binary.LittleEndian
	mg := make([]byte, len(magic))
	if _, err := io.ReadFull(br, mg); err != nil || string(mg) != magic {
		return 0, 0, nil, nil, fmt.Errorf("punctmodel: not a %s classifier file", what)
	}
	var b uint32
	if err := binary.Read(br, le, &b); err != nil {
		return 0, 0, nil, nil, fmt.Errorf("punctmodel: %s: %w", what, err)
	}
	if b < 8 || b > 24 {
		return 0, 0, nil, nil, fmt.Errorf("punctmodel: %s: table size %d out of range", what, b)
	}
	if err := binary.Read(br, le, &threshold); err != nil || math.IsNaN(float64(threshold)) || math.IsInf(float64(threshold), 0) {
		return 0, 0, nil, nil, fmt.Errorf("punctmodel: %s: bad threshold", what)
	}
	weights = make([]float32, 1<<b)
	if err := readFloat32s(br, weights); err != nil {
		return 0, 0, nil, nil, fmt.Errorf("punctmodel: %s: weights: %w", what, err)
	}
	for _, v := range weights {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return 0, 0, nil, nil, errors.New("punctmodel: " + what + ": bad weight")
		}
	}
	return uint(b), threshold, weights, br, nil
}

// readInt16s and readFloat32s fill dst from r, little-endian, through a
// small buffer: binary.Read decodes a slice from a copy of all of its
// bytes, which for the weight tables (4 to 8 MB) raised the memory a
// server holds after loading the model by that much again.
func readInt16s(r io.Reader, dst []int16) error {
	var buf [32 << 10]byte
	for len(dst) > 0 {
		n := min(len(dst), len(buf)/2)
		if _, err := io.ReadFull(r, buf[:2*n]); err != nil {
			return err
		}
		for i := range n {
			dst[i] = int16(binary.LittleEndian.Uint16(buf[2*i:]))
		}
		dst = dst[n:]
	}
	return nil
}

func readFloat32s(r io.Reader, dst []float32) error {
	var buf [32 << 10]byte
	for len(dst) > 0 {
		n := min(len(dst), len(buf)/4)
		if _, err := io.ReadFull(r, buf[:4*n]); err != nil {
			return err
		}
		for i := range n {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		}
		dst = dst[n:]
	}
	return nil
}
