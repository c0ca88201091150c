package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// FileSummary is what one fast pass over a JSONL history gives, decoding
// only its nemesis records (a few per fault) and its last line.
type FileSummary struct {
	// Records is the number of records (blank lines and a truncated last
	// record not counted).
	Records int
	// Nemesis are the nemesis records, in order.
	Nemesis History
	// Warnings are Scanner's: a last line that does not parse (a record cut
	// short by a crash) is skipped.
	Warnings []Warning
}

// SummarizeFile reads the JSONL history at path once, decoding only the
// nemesis records (found by their "process":-1) and the last line; a
// damaged record before it is left to the checks to notice.
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
					s.Records++ // the line before: a record
				}
				last, lastLine, lastNem = append(last[:0], t...), line, false
				if nemesisLine(t) {
					if o, ok := decodeNemesis(t); ok {
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
	if err := decodeStrict(last, &Op{}); err != nil {
		s.Warnings = append(s.Warnings, Warning{Line: lastLine, Msg: "truncated last record skipped: " + err.Error()})
		if lastNem {
			s.Nemesis = s.Nemesis[:len(s.Nemesis)-1]
		}
		return s, nil
	}
	s.Records++
	return s, nil
}

// decodeNemesis decodes line b (decodeFast, else encoding/json), false
// if it does not parse or is not a nemesis record.
func decodeNemesis(b []byte) (Op, bool) {
	var o Op
	if !decodeFast(b, &o, nil) {
		o = Op{}
		if json.Unmarshal(b, &o) != nil {
			return Op{}, false
		}
	}
	return o, o.IsNemesis()
}

// nemesisLine reports whether a JSONL record may be a nemesis record
// ("process":-1); false positives are decoded and dropped.
func nemesisLine(b []byte) bool {
	// look for the rare '-' (a byte search is many times faster)
	const field = `"process":`
	for off := 0; ; {
		j := bytes.IndexByte(b[off:], '-')
		if j < 0 {
			return false
		}
		i := off + j
		off = i + 1
		if !bytes.HasSuffix(b[:i], []byte(field)) || !bytes.HasPrefix(b[i:], []byte("-1")) {
			continue
		}
		if rest := b[i+2:]; len(rest) == 0 || rest[0] == ',' || rest[0] == '}' || rest[0] == ' ' {
			return true
		}
	}
}
