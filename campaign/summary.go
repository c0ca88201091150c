package campaign

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/lockstorm/lockstorm/checker"
)

// holdsWord is a claim's outcome in the progress line and the table.
func holdsWord(v checker.Validity) string {
	return cmp.Or(map[checker.Validity]string{checker.Valid: "holds", checker.Invalid: "FAILS"}[v], "unknown")
}

// ProgressLine is the line printed as each run ends: "[3/8] unfenced
// seed 1: invalid, a claim FAILS (...)  <folder>".
func ProgressLine(done, total int, o Outcome) string {
	head := fmt.Sprintf("[%d/%d] %s: ", done, total, o.Label())
	if o.Resumed {
		head += "done before, "
	}
	switch {
	case o.Skipped != "":
		return head + "skipped: " + o.Skipped
	case o.Error != "" && len(o.Claims) == 0:
		return head + "error: " + o.Error
	}
	line := head + o.Verdict.String()
	if len(o.Claims) > 0 {
		line += ", " + map[checker.Validity]string{checker.Valid: "claims hold", checker.Invalid: "a claim FAILS", checker.Unknown: "a claim cannot be judged"}[o.Holds()]
	}
	var why []string
	for _, c := range o.Claims {
		if c.Holds != checker.Valid {
			why = append(why, c.Name+": "+c.Seen)
		}
	}
	if o.Error != "" {
		why = append(why, o.Error)
	}
	if len(why) > 0 {
		line += " (" + strings.Join(why, "; ") + ")"
	}
	return line + "  " + o.Dir
}

// Markdown is the campaign's summary table (a row per claim of each
// run), then its status line.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("| cell | seed | verdict | claim | holds | seen | folder |\n|---|---|---|---|---|---|---|\n")
	for _, o := range r.Outcomes {
		switch {
		case o.Skipped != "":
			fmt.Fprintf(&b, "| %s | %d | skipped | — | — | %s | — |\n", cell(o.Cell), o.Seed, cell(o.Skipped))
			continue
		case len(o.Claims) == 0:
			fmt.Fprintf(&b, "| %s | %d | %s | — | %s | %s | %s |\n", cell(o.Cell), o.Seed, o.Verdict, holdsWord(o.Holds()), cell(o.Error), cell(o.Dir))
		}
		for _, c := range o.Claims {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s |\n", cell(o.Cell), o.Seed, o.Verdict, cell(c.Name), holdsWord(c.Holds), cell(c.Seen), cell(o.Dir))
		}
	}
	if len(r.Cells) > 0 {
		b.WriteString("\n| cell | claim over its runs | holds | seen |\n|---|---|---|---|\n")
		for _, c := range r.Cells {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(c.Cell), cell(c.Name), holdsWord(c.Holds), cell(c.Seen))
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.StatusLine())
	return b.String()
}

// StatusLine says how the campaign came out: runs done of planned, and
// how many claims hold, fail or cannot be judged.
func (r *Report) StatusLine() string {
	n := map[checker.Validity]int{}
	skipped, failed := 0, 0
	for _, o := range r.Outcomes {
		switch {
		case o.Skipped != "":
			skipped++
		case o.Error != "" && len(o.Claims) == 0:
			failed++
		}
		for _, c := range o.Claims {
			n[c.Holds]++
		}
	}
	for _, c := range r.Cells {
		n[c.Holds]++
	}
	line := fmt.Sprintf("%s: %d of %d runs; claims hold %d, fail %d, cannot say %d", strings.TrimSpace(r.Kind+" "+r.Name), len(r.Outcomes), r.Planned, n[checker.Valid], n[checker.Invalid], n[checker.Unknown])
	if failed > 0 {
		line += fmt.Sprintf("; %d runs did not finish", failed)
	}
	if skipped > 0 {
		line += fmt.Sprintf("; %d skipped", skipped)
	}
	if r.Shard.Set() {
		line += fmt.Sprintf(" (shard %s of a campaign of %d runs: lockstorm merge of every shard gives the whole)", r.Shard, r.Total)
	}
	if r.Stopped != "" {
		line += "; " + r.Stopped
	}
	if r.Interrupted {
		line += "; interrupted"
	}
	return line
}

// cell is s in a markdown table cell.
func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
