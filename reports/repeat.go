package reports

import (
	"fmt"
	"io"

	"github.com/lockstorm/lockstorm/analysis"
)

// RunHeader is the line printed before each run's summary in a campaign:
// "run 2/5  seed 123".
func RunHeader(w io.Writer, i, n int, res *analysis.Result) {
	fmt.Fprintf(w, "\n== run %d/%d  seed %d ==\n", i, n, res.Config.Seed)
}
