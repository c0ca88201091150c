package coverage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/lockstorm/lockstorm/history"
)

// FileSummary is what one fast pass over a JSONL history gives, decoding
// only its nemesis records (a few per fault) and its last line: the
// client records are counted and their times read, not parsed.
type FileSummary struct {
	// Records is the number of records (blank lines and a truncated last
	// record not counted).
	Records int
	// Nemesis are the nemesis records, in order.
	Nemesis history.History
	// End is the latest record time, ns since the run started.
	End int64
	// ClientRecords counts the client records, Slotted those of them
	// that carry a client slot ("client").
	ClientRecords, Slotted int
	// Warnings are history.Read's: a last line that does not parse (a
	// record cut short by a crash) is skipped.
	Warnings []history.Warning
}

// SummarizeFile reads the JSONL history at path once, line by line. A
// damaged record before the last line is not noticed (history.Read would
// refuse it): the checks, which read every record, do.
func SummarizeFile(path string) (FileSummary, error) {
	var s FileSummary
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var last []byte
	lastNem := false
	line, lastLine := 0, 0
	for {
		b, rerr := r.ReadSlice('\n')
		if errors.Is(rerr, bufio.ErrBufferFull) {
			long := append([]byte(nil), b...) // a line longer than the buffer
			for errors.Is(rerr, bufio.ErrBufferFull) {
				b, rerr = r.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if len(b) > 0 {
			line++
			if t := bytes.TrimSpace(b); len(t) > 0 {
				if last != nil {
					s.count(last, lastNem) // the line before: a record
				}
				last, lastLine, lastNem = append(last[:0], t...), line, false
				if nemesisLine(t) {
					var o history.Op
					if json.Unmarshal(t, &o) == nil && o.IsNemesis() {
						s.Nemesis, lastNem = append(s.Nemesis, o), true
					}
				}
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return s, fmt.Errorf("%s: %w", path, rerr)
		}
	}
	if last == nil {
		return s, nil
	}
	if err := decodeRecord(last); err != nil {
		s.Warnings = append(s.Warnings, history.Warning{Line: lastLine, Msg: "truncated last record skipped: " + err.Error()})
		if lastNem {
			s.Nemesis = s.Nemesis[:len(s.Nemesis)-1]
		}
		return s, nil
	}
	s.count(last, lastNem)
	return s, nil
}

// count adds the record on line b (a nemesis record when nem).
func (s *FileSummary) count(b []byte, nem bool) {
	s.Records++
	s.End = max(s.End, intField(b, `"time":`))
	if nem {
		return
	}
	s.ClientRecords++
	if bytes.Contains(b, []byte(`"client":"`)) {
		s.Slotted++
	}
}

// intField is the integer after name in the JSON line b (0 when absent).
func intField(b []byte, name string) int64 {
	i := bytes.Index(b, []byte(name))
	if i < 0 {
		return 0
	}
	rest := b[i+len(name):]
	j := 0
	for j < len(rest) && (rest[j] == '-' || rest[j] >= '0' && rest[j] <= '9') {
		j++
	}
	v, _ := strconv.ParseInt(string(rest[:j]), 10, 64)
	return v
}

// decodeRecord is history.Read's decoding of one record (its error
// messages, for the warning).
func decodeRecord(b []byte) error {
	var o history.Op
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&o); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("trailing data after record")
	}
	return nil
}

// nemesisLine reports whether a JSONL record may be a nemesis record
// ("process":-1); false positives are decoded and dropped.
func nemesisLine(b []byte) bool {
	i := bytes.Index(b, []byte(`"process":-1`))
	if i < 0 {
		return false
	}
	rest := b[i+len(`"process":-1`):]
	return len(rest) == 0 || rest[0] == ',' || rest[0] == '}' || rest[0] == ' '
}
