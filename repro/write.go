package repro

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/reports"
)

// About is what the report says of the lock under test: from a zoo
// entry's manifest when the run was a zoo cell, else lockstorm's own lock.
type About struct {
	Library  string
	Version  string
	Upstream string
	// Promise is what the library's documentation promises (quoted).
	Promise string
	// Expected is the behaviour the documentation leads one to expect in
	// this configuration (a zoo cell's why).
	Expected string
}

// Files of a repro folder.
const (
	Folder      = "repro"
	ReportFile  = "REPORT.md"
	ReplayFile  = "replay.txt"
	ResultFile  = "repro.json"
	ExcerptFile = "history-excerpt.jsonl"
	// excerptAround is how many records the excerpt keeps before the
	// anomaly's first op and after its last.
	excerptAround = 12
)

// Write stores r in dir/repro (dir is the shrunk run's folder):
// fault-plan.json, replay.txt, repro.json, the history excerpt around the
// anomaly and REPORT.md. It returns the folder.
func Write(r *Result, about About) (string, error) {
	out := filepath.Join(r.Run, Folder)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	planPath, _ := filepath.Abs(filepath.Join(out, config.FaultPlanFile))
	if err := config.WriteFaultPlan(planPath, &r.Best.Plan); err != nil {
		return out, err
	}
	replay := r.replay(planPath)
	if err := os.WriteFile(filepath.Join(out, ReplayFile), []byte(replay+"\n"), 0o644); err != nil {
		return out, err
	}
	if err := store.WriteJSON(filepath.Join(out, ResultFile), r); err != nil {
		return out, err
	}
	src := r.Best.Failing
	if src == "" {
		src = r.Run
	}
	ex, anomaly, err := excerpt(src, r.Target)
	if err != nil {
		return out, err
	}
	var b strings.Builder
	for _, o := range ex {
		line, _ := json.Marshal(o)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(out, ExcerptFile), []byte(b.String()), 0o644); err != nil {
		return out, err
	}
	return out, os.WriteFile(filepath.Join(out, ReportFile), []byte(r.report(about, replay, src, anomaly, ex)), 0o644)
}

// replay is the command line that runs the best candidate once, its plan
// read from planPath.
func (r *Result) replay(planPath string) string {
	cfg := r.Base
	cfg.Plan, cfg.PlanFile = &r.Best.Plan, planPath
	cfg.Clients, cfg.TimeLimit = r.Best.Clients, r.Best.Plan.End
	cfg.Store = ""
	return reports.ReplayCommand(cfg)
}

// excerpt reads the anomaly the run in dir shows (its first of the
// target's kind) and the records around its ops.
func excerpt(dir string, t Target) ([]history.Op, string, error) {
	res, err := analysis.LoadChecked(dir)
	if err != nil {
		return nil, "", err
	}
	a, ok := t.Shows(res.Verdict)
	if !ok {
		a.Ops, a.Text = t.Ops, t.Text
	}
	lo, hi := int64(0), int64(0)
	if len(a.Ops) > 0 {
		lo, hi = a.Ops[0], a.Ops[len(a.Ops)-1]
	}
	lo, hi = max(0, lo-excerptAround), hi+excerptAround
	h, err := history.ReadRange(history.File(filepath.Join(dir, store.HistoryFile)), history.Pos{}, hi+1)
	var out []history.Op
	for _, o := range h {
		if o.Index >= lo {
			out = append(out, o)
		}
	}
	text := fmt.Sprintf("%s: %s: %s (ops %v)", t.Checker, t.Kind, a.Text, a.Ops)
	return out, text, err
}

// report is REPORT.md, in the form of an upstream bug report.
func (r *Result) report(about About, replay, src, anomaly string, ex []history.Op) string {
	var w strings.Builder
	lib := about.Library
	if lib == "" {
		lib = "lockstorm lock " + r.Base.Lock
	}
	fmt.Fprintf(&w, "# %s: %s under %s\n\n", lib, r.Target.Kind, strings.Join(r.Base.Nemesis, ", "))
	w.WriteString("## What the documentation promises\n\n")
	if about.Promise != "" {
		fmt.Fprintf(&w, "> %s\n\n", about.Promise)
	} else {
		w.WriteString("(no promise recorded: the lock is not a zoo entry)\n\n")
	}
	if about.Upstream != "" {
		fmt.Fprintf(&w, "Source: <%s>\n\n", about.Upstream)
	}
	w.WriteString("## Versions\n\n")
	if about.Version != "" {
		fmt.Fprintf(&w, "- %s %s\n", lib, about.Version)
	}
	vs := versions(r.Run)
	fmt.Fprintf(&w, "- Redis %s, lockstorm %s, %s\n", orUnknown(vs["redis"]), orUnknown(vs["lockstorm"]), orUnknown(vs["go"]))
	fmt.Fprintf(&w, "- %d Redis node(s), TTL %v, the %s workload (lockstorm's lock name %s)\n\n", r.Base.Nodes, r.Base.TTL, r.Base.Workload, r.Base.Lock)
	w.WriteString("## Steps to reproduce\n\n")
	fmt.Fprintf(&w, "```sh\n%s\n```\n\n", replay)
	fmt.Fprintf(&w, "%d client(s), %v in all. The faults (`fault-plan.json` beside this file; `@holder`, `@waiter`, `@releaser`, `@renewal` name a client by what it is doing when the fault starts):\n\n", r.Best.Clients, r.Best.Length())
	w.WriteString("| at | fault | for |\n|---|---|---|\n")
	for _, st := range r.Best.Plan.Steps {
		fmt.Fprintf(&w, "| %v | %s | %v |\n", st.At, describe(st.Fault), st.Duration)
	}
	fmt.Fprintf(&w, "\nMeasured: the anomaly showed in **%s** runs of this configuration (seeds %v). ", r.Best.Rate(), r.Best.Seeds)
	fmt.Fprintf(&w, "The run it was shrunk from had %s and showed it in %s runs; the shrink measured %d candidates in %.0f s.\n\n", r.Before, r.Before.Rate(), r.Measured, r.Seconds)
	w.WriteString("## Expected\n\n")
	fmt.Fprintf(&w, "No %s anomaly from lockstorm's %s checker (%s).\n\n", r.Target.Kind, r.Target.Checker, checkerMeaning(r.Target.Checker))
	if about.Expected != "" {
		fmt.Fprintf(&w, "The zoo cell's expectation, committed before it first ran: %s\n\n", about.Expected)
	}
	w.WriteString("## Observed\n\n")
	fmt.Fprintf(&w, "%s\n\nRun folder: `%s`\n\n", anomaly, src)
	w.WriteString("## The operations, with times\n\nSeconds since the run started; process −1 is the fault injector.\n\n")
	w.WriteString("| op | time (s) | process | client | op | type | value / token / validity | detail |\n|---|---|---|---|---|---|---|---|\n")
	for _, o := range ex {
		fmt.Fprintf(&w, "| %d | %.3f | %d | %s | %s | %s | %s | %s |\n", o.Index, float64(o.Time)/1e9, o.Process, o.Client, o.F, o.Type, opValue(o), mdCell(firstNonEmpty(o.Error, o.Detail)))
	}
	return w.String()
}

// checkerMeaning says in a few words what a checker's verdict rests on.
func checkerMeaning(name string) string {
	switch name {
	case "lock":
		return "an acquire may succeed only once every other lease has ended by the server's promise: its TTL from the acquire's call, or a release that succeeded; a release or extend answers ok only for a lease still held"
	case "resource":
		return "the protected counter: each critical section reads the value the previous one wrote, and no acknowledged increment is lost; for the leader workload, no two leaders' heartbeats interleave"
	case "exclusion":
		return "no two holders' leases overlap, and no holder writes after its own lease's validity"
	case "liveness":
		return "the lock frees again: a lease whose holder died ends by its TTL"
	case "fencing", "tokens":
		return "fencing tokens only grow"
	}
	return name
}

// versions is the versions map of dir's test.json.
func versions(dir string) map[string]string {
	var tf analysis.TestFile
	if b, err := os.ReadFile(filepath.Join(dir, store.TestFile)); err == nil {
		_ = json.Unmarshal(b, &tf)
	}
	return tf.Versions
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

func describe(f nemesis.Fault) string {
	s := f.Kind
	if f.Shape != "" {
		s += " " + f.Shape
	}
	if len(f.Clients) > 0 {
		s += " clients=" + strings.Join(f.Clients, ",")
	}
	if len(f.Nodes) > 0 {
		s += " nodes=" + strings.Join(f.Nodes, ",")
	}
	if f.Delay > 0 {
		s += " delay=" + f.Delay.String()
	}
	return s
}

func opValue(o history.Op) string {
	var parts []string
	if (o.F == history.FRead && o.Type == history.OK) || o.F == history.FWrite || o.F == history.FLead || o.F == history.FRun {
		parts = append(parts, fmt.Sprintf("value %d", o.Value))
	}
	if o.Token != "" {
		tok := o.Token
		if len(tok) > 10 {
			tok = tok[:10] + "…"
		}
		parts = append(parts, "token "+tok)
	}
	if o.Validity > 0 {
		parts = append(parts, fmt.Sprintf("valid until %.3f", float64(o.Validity)/1e9))
	}
	return strings.Join(parts, ", ")
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func mdCell(s string) string {
	if len(s) > 90 {
		s = s[:90] + "…"
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
