package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lockstorm/lockstorm/clients/python"
	"github.com/lockstorm/lockstorm/config"
)

// clientArgv is the command line of c's process clients: ClientCmd, or the
// process lock's own command. A command named "lockstorm" that is not on
// PATH is this binary, when this binary is lockstorm.
func clientArgv(c config.Config) ([]string, error) {
	if c.ClientCmd == "" {
		argv, err := python.Command(c.Lock)
		if err != nil {
			return nil, fmt.Errorf("%w: --lock %s: %v", config.ErrConfig, c.Lock, err)
		}
		return argv, nil
	}
	argv, err := config.SplitCommand(c.ClientCmd)
	if err != nil {
		return nil, fmt.Errorf("%w: --client-cmd: %v", config.ErrConfig, err)
	}
	if c.ClientDir != "" && strings.ContainsRune(argv[0], filepath.Separator) && !filepath.IsAbs(argv[0]) {
		abs, err := filepath.Abs(filepath.Join(c.ClientDir, argv[0]))
		if err != nil {
			return nil, fmt.Errorf("%w: --client-cmd: %v", config.ErrConfig, err)
		}
		argv[0] = abs
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		if self, serr := os.Executable(); argv[0] == "lockstorm" && serr == nil && filepath.Base(self) == "lockstorm" {
			argv[0] = self
			return argv, nil
		}
		return nil, fmt.Errorf("%w: --client-cmd: %v", config.ErrConfig, err)
	}
	return argv, nil
}
