package campaign

import (
	"fmt"
	"strings"

	"github.com/lockstorm/lockstorm/checker"
)

// holdsWord is a claim's outcome in the progress line and the table.
func holdsWord(v checker.Validity) string {
	switch v {
	case checker.Valid:
		return "holds"
	case checker.Invalid:
		return "FAILS"
	}
	return "unknown"
}

// ProgressLine is the one line printed as each run of a campaign ends:
// "[3/8] unfenced seed 1: invalid, claims FAIL (without fencing: ...:
// 0 lost updates)  store/compare-fenced-unfenced/2026...".
func ProgressLine(done, total int, o Outcome) string {
	head := fmt.Sprintf("[%d/%d] %s: ", done, total, o.Label())
	switch {
	case o.Skipped != "":
		return head + "skipped: " + o.Skipped
	case o.Error != "" && len(o.Claims) == 0:
		return head + "error: " + o.Error
	}
	line := head + o.Verdict.String() + ", " + map[checker.Validity]string{checker.Valid: "claims hold", checker.Invalid: "a claim FAILS"}[o.Holds()]
	if o.Holds() == checker.Unknown {
		line += "a claim cannot be judged"
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

// Markdown is the campaign's summary table: one row per run, with its
// verdict, each claim and whether it held, and its folder; then the
// campaign's status line.
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
	fmt.Fprintf(&b, "\n%s\n", r.StatusLine())
	return b.String()
}

// StatusLine says in one line how the campaign came out.
func (r *Report) StatusLine() string {
	n := map[checker.Validity]int{}
	skipped := 0
	for _, o := range r.Outcomes {
		if o.Skipped != "" {
			skipped++
			continue
		}
		n[o.Holds()]++
	}
	line := fmt.Sprintf("%s %s: %d of %d runs: claims hold in %d, fail in %d, unknown in %d", r.Kind, r.Name, len(r.Outcomes), r.Planned, n[checker.Valid], n[checker.Invalid], n[checker.Unknown])
	if r.Name == "" {
		line = strings.Replace(line, r.Kind+" :", r.Kind+":", 1)
	}
	if skipped > 0 {
		line += fmt.Sprintf(", skipped %d", skipped)
	}
	if r.Shard.Set() {
		line += fmt.Sprintf(" (shard %s of a campaign of %d runs: lockstorm merge of every shard gives the whole)", r.Shard, r.Total)
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
