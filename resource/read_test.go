package resource

import (
	"errors"
	"slices"
	"testing"
)

// wantLog fails t unless the server's log holds one entry per want, in
// order, each described as "read" or "write", "accepted" or "rejected",
// and " stale" when logged stale.
func wantLog(t *testing.T, s *Server, want ...string) {
	t.Helper()
	var got []string
	for _, w := range s.Writes() {
		d := "write"
		if w.Read {
			d = "read"
		}
		if w.Accepted {
			d += " accepted"
		} else {
			d += " rejected"
		}
		if w.Stale {
			d += " stale"
		}
		got = append(got, d)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("log %q, want %q", got, want)
	}
}

// The read-modify-write race fencing must stop: holder 55 read, its write
// was delayed; holder 56 read. 55's write must now be rejected, although
// no write with a higher token has reached the resource yet, and 56's
// write then accepted.
func TestFencedReadRejectsLowerWrite(t *testing.T) {
	s, c := start(t, true)
	if err := c.Write(ctx(t), "x", 10, 54); err != nil {
		t.Fatal(err)
	}
	if v, err := c.ReadFenced(ctx(t), "x", 55); err != nil || v != 10 {
		t.Fatalf("read by 55: %d %v", v, err)
	}
	if v, err := c.ReadFenced(ctx(t), "x", 56); err != nil || v != 10 {
		t.Fatalf("read by 56: %d %v", v, err)
	}
	if err := c.Write(ctx(t), "x", 11, 55); !errors.Is(err, ErrStale) {
		t.Fatalf("write by 55 after a read by 56: want ErrStale, got %v", err)
	}
	if err := c.Write(ctx(t), "x", 11, 56); err != nil {
		t.Fatalf("write by 56: %v", err)
	}
	if s.Value("x") != 11 {
		t.Fatalf("value %d, want 11", s.Value("x"))
	}
	w := s.Writes()
	if len(w) != 5 {
		t.Fatalf("log has %d entries, want 5: %+v", len(w), w)
	}
	r56, w55 := w[2], w[3]
	if !r56.Read || !r56.Accepted || r56.Stale || r56.Fence != 56 || r56.Value != 10 {
		t.Fatalf("read by 56 logged as %+v", r56)
	}
	if w55.Read || w55.Accepted || !w55.Stale || w55.Fence != 55 {
		t.Fatalf("write by 55 logged as %+v", w55)
	}
}

// A read with a token below the highest is rejected, logged as a stale
// read, and does not lower the mark; unfenced reads are always served and
// not logged.
func TestFencedReadRejectedWhenStale(t *testing.T) {
	s, c := start(t, true)
	if _, err := c.ReadFenced(ctx(t), "x", 56); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadFenced(ctx(t), "x", 55); !errors.Is(err, ErrStale) {
		t.Fatalf("read by 55 after 56: want ErrStale, got %v", err)
	}
	if _, err := c.ReadFenced(ctx(t), "x", 56); err != nil {
		t.Fatalf("equal token rejected: %v", err)
	}
	if _, err := c.Read(ctx(t), "x"); err != nil {
		t.Fatalf("unfenced read: %v", err)
	}
	wantLog(t, s, "read accepted", "read rejected stale", "read accepted")
}

// Without fencing a stale read is served, but logged as stale, and still
// raises the mark so the log marks a later lower write stale.
func TestNoFencingServesStaleReadAndMarksIt(t *testing.T) {
	s, c := start(t, false)
	if _, err := c.ReadFenced(ctx(t), "x", 56); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadFenced(ctx(t), "x", 55); err != nil {
		t.Fatalf("without fencing a stale read must be served: %v", err)
	}
	if err := c.Write(ctx(t), "x", 1, 55); err != nil {
		t.Fatal(err)
	}
	wantLog(t, s, "read accepted", "read accepted stale", "write accepted stale")
}
