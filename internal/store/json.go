package store

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// WriteFile replaces path with b through a temporary file renamed into
// place, so that a failed or interrupted write (a full disk, Ctrl-C)
// leaves the previous content whole and never a half-written file.
func WriteFile(path string, b []byte) error {
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, b, 0o644)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// WriteJSON replaces path with v as indented JSON and a final newline,
// as WriteFile does.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("store: %s: %w", path, err)
	}
	return WriteFile(path, append(b, '\n'))
}

// WriteJSONL writes xs to path, one JSON object a line.
func WriteJSONL[T any](path string, xs []T) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, x := range xs {
		if err := enc.Encode(x); err != nil {
			f.Close()
			return fmt.Errorf("store: %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("store: %w", err)
	}
	return f.Close()
}

// ReadJSON decodes the JSON file at path into v. The error of a file that
// is not there wraps os.ErrNotExist.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
