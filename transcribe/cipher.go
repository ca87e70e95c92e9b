package transcribe

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// KeySize is the length in bytes of the AES-256 content key.
const KeySize = 32

// Cipher seals transcript content with AES-256-GCM. The record id is bound
// as additional data, so a sealed blob cannot be swapped onto another
// record. Safe for concurrent use. The packages that keep their own
// records beside the transcripts (webhook, httpapi/lemur) seal them with it.
type Cipher struct{ aead cipher.AEAD }

// NewCipher returns a Cipher for a 32-byte key.
func NewCipher(key []byte) (*Cipher, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("transcribe: encryption key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Cipher{aead: aead}, nil
}

// NewKey returns a fresh random key.
func NewKey() []byte {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return k
}

// Seal encrypts plain, binding id. Output: nonce || ciphertext.
func (c *Cipher) Seal(id string, plain []byte) []byte {
	nonce := make([]byte, c.aead.NonceSize(), c.aead.NonceSize()+len(plain)+c.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err)
	}
	return c.aead.Seal(nonce, nonce, plain, []byte(id))
}

// Open decrypts what Seal produced for the same id.
func (c *Cipher) Open(id string, sealed []byte) ([]byte, error) {
	return c.openTo(nil, id, sealed)
}

// openTo is Open appending the plaintext to dst (a reused buffer, say),
// which must not overlap sealed.
func (c *Cipher) openTo(dst []byte, id string, sealed []byte) ([]byte, error) {
	return c.openAAD(dst, id, []byte(id), sealed)
}

// openAAD is openTo with the additional data given as bytes (aad, the
// bytes of what Seal bound); id names the record in errors.
func (c *Cipher) openAAD(dst []byte, id string, aad, sealed []byte) ([]byte, error) {
	n := c.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("transcribe: sealed data too short")
	}
	plain, err := c.aead.Open(dst, sealed[:n], sealed[n:], aad)
	if err != nil {
		return nil, fmt.Errorf("transcribe: cannot decrypt record %s (wrong key?): %w", id, err)
	}
	return plain, nil
}
