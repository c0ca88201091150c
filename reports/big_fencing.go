package reports

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/plotter"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/resource"
)

// maxFenceSample bounds the points a big history's fencing.png keeps of
// the resource's log, and of the tokens issued on acquire: above it, an
// even sample (every k-th), plus every stale write or read up to
// maxExactGroup of them. The title says so. Tests lower it.
var maxFenceSample = 100_000

// fencing draws a big history's fencing.png from the resource's log,
// read entry by entry (the key's highest accepted token kept exactly for
// every entry), and the issued tokens pass 2 sampled; false when the run
// has no resource log. Sends are unknown: the history's writes are not
// paired with the log.
func (b *bigRun) fencing(res *harness.Result, ws []checker.Window, end int64) ([]byte, bool, error) {
	pts, title, err := sampleFences(filepath.Join(res.Dir, store.WritesFile))
	if err != nil || title == "" {
		return nil, false, err
	}
	p, legend, _, err := fencingPlotFrom(title, pts, b.issued, ws, end)
	if err != nil {
		return nil, false, err
	}
	png, err := renderPNG(p, legend, figWidth, figHeight)
	return png, true, err
}

// sampleFences reads the resource's log at path into fencing.png's
// points (every one up to maxFenceSample entries, else a sample) and the
// plot's title, "" when there is no log.
func sampleFences(path string) (pts []fencePoint, title string, err error) {
	n, err := history.CountLines(path)
	if errors.Is(err, os.ErrNotExist) || err == nil && n == 0 {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	every := (n + maxFenceSample - 1) / maxFenceSample
	highest := map[string]int64{}
	total, stale := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var w resource.Write
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			return nil, "", fmt.Errorf("%s line %d: %v", store.WritesFile, line, err)
		}
		if w.Enter {
			continue // as fencePoints: the log's api entries carry no write
		}
		hi, seen := highest[w.Key]
		if !seen || w.Accepted && w.Fence > hi {
			highest[w.Key] = w.Fence
		}
		pt := fencePoint{t: w.Time, fence: w.Fence, accepted: w.Accepted, stale: w.Stale, read: w.Read, highest: hi, send: -1}
		switch {
		case w.Stale && stale < maxExactGroup:
			stale++
			pts = append(pts, pt)
		case total%every == 0 && !w.Stale:
			pts = append(pts, pt)
		}
		total++
	}
	if err := sc.Err(); err != nil {
		return nil, "", err
	}
	title = fencingTitle(pts, "from the resource's log")
	if every > 1 {
		title = fmt.Sprintf("Fencing tokens at the resource — a sample: every %d%s of %d log entries and every stale one", every, ordinalSuffix(every), total)
		if stale == maxExactGroup {
			title += fmt.Sprintf(" (the first %d)", maxExactGroup)
		}
	}
	return pts, title, nil
}

// ordinalSuffix is "th", "nd", ... for n.
func ordinalSuffix(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return "th"
	case n%10 == 1:
		return "st"
	case n%10 == 2:
		return "nd"
	case n%10 == 3:
		return "rd"
	}
	return "th"
}

// addIssued samples the token of an acquire ok for fencing.png: every
// issuedEvery-th (pass 1 counted them).
func (b *bigRun) addIssued(t, fence int64) {
	if b.issuedSeen%b.issuedEvery == 0 {
		b.issued = append(b.issued, plotter.XY{X: seconds(t), Y: float64(fence)})
	}
	b.issuedSeen++
}
