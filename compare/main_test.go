package compare

import (
	"os"
	"testing"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

// TestMain fails the package if a test leaves a redis-server behind.
func TestMain(m *testing.M) { os.Exit(clustertest.Main(m)) }
