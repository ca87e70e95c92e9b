package drivertest

import (
	"bytes"
	"crypto/sha256"
	"io"
	"testing"
)

// The generator must yield the same stream whatever the read sizes.
func TestGenReaderReadSizes(t *testing.T) {
	const n = 10007
	whole, err := io.ReadAll(newGenReader(n, 42))
	if err != nil || len(whole) != n {
		t.Fatalf("ReadAll: %d bytes, %v", len(whole), err)
	}
	for _, size := range []int{1, 3, 7, 8, 9, 4096} {
		g := newGenReader(n, 42)
		var got []byte
		buf := make([]byte, size)
		for {
			m, err := g.Read(buf)
			got = append(got, buf[:m]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, whole) {
			t.Errorf("read size %d gives a different stream", size)
		}
		if sum := sha256.Sum256(whole); !bytes.Equal(g.sum.Sum(nil), sum[:]) {
			t.Errorf("read size %d: running hash differs", size)
		}
	}
}
