// Package storetest is what tests share to run a lockstorm test and open
// what it left in its run folder (or in a sweep or comparison folder).
// It knows no lockstorm package but store, so the harness's own tests can
// use it: Run takes the run function (harness.Run, lockstorm.Run) as an
// argument.
package storetest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Run runs cfg with run under a background context and fails t at once
// when run returns an error.
func Run[C, R any](t testing.TB, run func(context.Context, C) (R, error), cfg C) R {
	t.Helper()
	res, err := run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Path is file name (slash-separated, relative) of folder dir.
func Path(dir, name string) string { return filepath.Join(dir, filepath.FromSlash(name)) }

// Read is the content of file name of folder dir; it fails t at once when
// the file cannot be read.
func Read(t testing.TB, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(Path(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ReadJSON decodes file name of folder dir into v and returns its text; it
// fails t at once when the file cannot be read or decoded.
func ReadJSON(t testing.TB, dir, name string, v any) string {
	t.Helper()
	b := Read(t, dir, name)
	if err := json.Unmarshal([]byte(b), v); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, b)
	}
	return b
}

// Write replaces file name of folder dir with text; it fails t at once
// when it cannot.
func Write(t testing.TB, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(Path(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// NonEmpty fails t (going on) for each of names that is missing from
// folder dir or empty.
func NonEmpty(t testing.TB, dir string, names ...string) {
	t.Helper()
	for _, name := range names {
		if st, err := os.Stat(Path(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: missing or empty (%v)", name, err)
		}
	}
}

// WriteJSON writes v as JSON to file name of folder dir, creating dir; it
// fails t at once when it cannot.
func WriteJSON(t testing.TB, dir, name string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Write(t, dir, name, string(b))
}

// Copy copies files names of folder from into folder to, creating to (a
// stored run made by hand from a real one); it fails t at once when it
// cannot.
func Copy(t testing.TB, from, to string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		Write(t, to, name, Read(t, from, name))
	}
}
