package benchrun

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/resource"
)

// clients is the generator's number of client slots.
const clients = 8

// folder is the second pass: it writes one run folder's history.jsonl and
// writes.jsonl from the generated history and keeps what final.json needs.
type folder struct {
	s     *scan
	slots map[int]string
	hist  *bufio.Writer
	log   *bufio.Writer
	n     int // records written
	// final is each counter's value after the run: its highest
	// acknowledged write.
	final map[string]int64
	// lose makes the folder lose the first acknowledged counter write at
	// or past the history's middle (lostIndex, on lostKey): every later
	// value of that counter is one lower, as if the write had been
	// acknowledged and then overwritten. laterAcked counts the
	// acknowledged writes of the counter after it: the next one writes the
	// lost write's value again.
	lose       bool
	lostKey    string
	lostIndex  int
	laterAcked int
}

// record writes the folder's records for generated record i.
func (f *folder) record(i int, o *history.Op) error {
	if o.IsNemesis() {
		return f.nemesis(i, o)
	}
	o.Client = f.slots[o.Process]
	f.loseUpdate(i, o)
	if o.F == history.FWrite && o.Type == history.OK {
		f.final[o.Key] = max(f.final[o.Key], o.Value)
		w := resource.Write{Time: o.Time, Key: o.Key, Value: o.Value, Fence: o.Fence, Accepted: true}
		if err := writeLine(f.log, w); err != nil {
			return err
		}
	}
	return f.emit(*o)
}

// nemesis writes a generated fault record (an info start or stop) as the
// harness's nemesis records it, an invoke and its ok naming the fault, and
// the final heal's pair after the last kept stop. Faults after it are
// dropped.
func (f *folder) nemesis(i int, o *history.Op) error {
	if i > f.s.lastStop {
		return nil
	}
	ft := faultOf(o)
	rec := history.Op{Time: o.Time, Type: history.Invoke, Process: history.NemesisProcess, F: o.F,
		Fault: ft.Kind, Detail: ft.String(), Nodes: ft.Nodes}
	recs := []history.Op{rec, rec}
	recs[1].Type = history.OK
	if i == f.s.lastStop {
		heal := history.Op{Time: o.Time, Type: history.Invoke, Process: history.NemesisProcess, F: nemesis.FHeal,
			Fault: "all", Detail: nemesis.Fault{Kind: "all"}.String()}
		recs = append(recs, heal, heal)
		recs[3].Type = history.OK
	}
	for _, r := range recs {
		if err := f.emit(r); err != nil {
			return err
		}
	}
	return nil
}

// loseUpdate applies the lost write to o (see folder.lose).
func (f *folder) loseUpdate(i int, o *history.Op) {
	switch {
	case !f.lose:
	case f.lostKey == "":
		if i >= f.s.records/2 && o.F == history.FWrite && o.Type == history.OK {
			f.lostKey, f.lostIndex = o.Key, i
		}
	case o.Key == f.lostKey && (o.F == history.FWrite || o.F == history.FRead && o.Type == history.OK):
		o.Value--
		if o.F == history.FWrite && o.Type == history.OK {
			f.laterAcked++
		}
	}
}

// emit writes o as the next record of history.jsonl.
func (f *folder) emit(o history.Op) error {
	o.Index = int64(f.n)
	f.n++
	return writeLine(f.hist, o)
}

func writeLine(w *bufio.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Write(b)
	return w.WriteByte('\n')
}

// writeFolder writes the run folder dir (replacing it) from the generated
// history at path, whose first pass is s: history.jsonl, writes.jsonl,
// final.json, then test.json with its completion mark. The folder is
// written as dir.tmp and renamed when whole, so that a folder under its
// name is complete.
func writeFolder(path string, s *scan, dir string, lose bool) error {
	slots, err := assignSlots(s.lives, clients)
	if err != nil {
		return err
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	f := &folder{s: s, slots: slots, final: map[string]int64{}, lose: lose}
	if err := f.writeRecords(path, tmp); err != nil {
		return err
	}
	if lose && f.laterAcked == 0 {
		return fmt.Errorf("%s: no acknowledged write of %s after the lost one (record %d)", path, f.lostKey, f.lostIndex)
	}
	if err := store.WriteJSON(filepath.Join(tmp, store.FinalFile), f.final); err != nil {
		return err
	}
	if err := store.WriteJSON(filepath.Join(tmp, store.TestFile), testFile(s, f.n, filepath.Dir(dir))); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// writeRecords runs the second pass into history.jsonl and writes.jsonl
// of the folder dir.
func (f *folder) writeRecords(path, dir string) error {
	hf, err := os.Create(filepath.Join(dir, store.HistoryFile))
	if err != nil {
		return err
	}
	defer hf.Close()
	lf, err := os.Create(filepath.Join(dir, store.WritesFile))
	if err != nil {
		return err
	}
	defer lf.Close()
	f.hist, f.log = bufio.NewWriterSize(hf, 1<<20), bufio.NewWriterSize(lf, 1<<20)
	if err := eachRecord(path, f.record); err != nil {
		return err
	}
	for _, w := range []*bufio.Writer{f.hist, f.log} {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if err := hf.Close(); err != nil {
		return err
	}
	return lf.Close()
}
