package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Warning is a problem the reader tolerated, with the line it was on.
type Warning struct {
	Line int
	Msg  string
}

func (w Warning) String() string { return fmt.Sprintf("line %d: %s", w.Line, w.Msg) }

// ReadFile loads a JSONL history, with Scanner's rules.
func ReadFile(path string) (History, []Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	var h History
	sc := NewScanner(f)
	for sc.Scan() {
		h = append(h, sc.Op())
	}
	if err := sc.Err(); err != nil {
		return nil, sc.Warnings(), fmt.Errorf("history: %s: %w", path, err)
	}
	return h, sc.Warnings(), nil
}

// decodeStrict decodes exactly one JSON object. Unknown fields are allowed
// so that histories written by newer versions stay readable.
func decodeStrict(b []byte, op *Op) error {
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(op); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("trailing data after record")
	}
	return nil
}

// WriteFile writes h as JSONL to path.
func WriteFile(path string, h History) error {
	var buf []byte
	for i := range h {
		buf = append(appendJSON(buf, &h[i]), '\n')
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}
