package config

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/clients/python"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// Pause models (Config.PauseModel).
const (
	PauseProcess = "process" // SIGSTOP of the client's process group, links frozen, until SIGCONT
	PauseLinks   = "links"   // the client's links frozen; its goroutines keep running
)

// LockNames lists every --lock name: lockimpl's (with the adapters
// registered when linked), then the process locks (the Python clients).
func LockNames() []string {
	return append(slices.Clone(lockimpl.Names()), python.Locks()...)
}

// multiNode reports whether the named lock defaults to 5 nodes and needs
// at least 3.
func multiNode(name string) bool { return lockimpl.MultiNode(name) || python.MultiNode(name) }

// IssuesFences reports whether the named lock (a Go lock or a process
// lock) hands out fencing tokens.
func IssuesFences(name string) bool { return lockimpl.IssuesFences(name) || python.IssuesFences(name) }

// FIFOLock reports whether the named lock promises FIFO grants.
func FIFOLock(name string) bool {
	return name == "fair" || name == "fair-naive" || python.FIFO(name)
}

// ProcessClients reports whether c's client slots are processes.
func (c Config) ProcessClients() bool { return c.ClientCmd != "" || python.Is(c.Lock) }

// checkClients checks the client command and the pause model, defaulting
// the latter.
func (c *Config) checkClients() error {
	if c.ProcessClients() && c.Provider == "external" {
		return errors.New("process clients (--client-cmd, " + strings.Join(python.Locks(), ", ") + ") run on the local and docker providers: on external endpoints they would need the password and TLS settings, which the client protocol does not pass yet")
	}
	if c.ClientCmd != "" {
		if c.NewLock != nil {
			return errors.New("--client-cmd and a NewLock cannot both be set: the clients are either the command's processes or the Go lock")
		}
		if _, err := SplitCommand(c.ClientCmd); err != nil {
			return fmt.Errorf("--client-cmd: %v", err)
		}
	}
	if c.ClientDir != "" {
		if c.ClientCmd == "" {
			return errors.New("--client-dir needs --client-cmd: it is the working directory of the client command")
		}
		if st, err := os.Stat(c.ClientDir); err != nil || !st.IsDir() {
			return fmt.Errorf("--client-dir %q is not a directory", c.ClientDir)
		}
	}
	switch c.PauseModel {
	case "":
		c.PauseModel = defaultPauseModel(*c)
	case PauseLinks:
	case PauseProcess:
		if !c.ProcessClients() {
			return fmt.Errorf("--pause-model %s needs clients that are processes (--client-cmd, or a lock among %s): the goroutines of an in-process client cannot be stopped", PauseProcess, strings.Join(python.Locks(), ", "))
		}
	default:
		return fmt.Errorf("--pause-model must be %s or %s, got %q", PauseProcess, PauseLinks, c.PauseModel)
	}
	return nil
}

// defaultPauseModel is process for process clients, else links.
func defaultPauseModel(c Config) string {
	if c.ProcessClients() {
		return PauseProcess
	}
	return PauseLinks
}

// SplitCommand splits a command line into words as a POSIX shell would
// (quotes and backslashes; nothing expanded). An empty command or an
// open quote is an error.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quote, escaped := false, rune(0), false
	for _, r := range s {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("unterminated quote or escape in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// ClientsSummary says, for the report, what the clients were and how
// client-pause paused them.
func ClientsSummary(c Config) string {
	what := "in-process Go clients"
	if c.ProcessClients() {
		what = "process clients (" + cmp.Or(c.ClientCmd, c.Lock) + ")"
	}
	if cmp.Or(c.PauseModel, defaultPauseModel(c)) == PauseProcess {
		return what + "; client-pause stops the whole process (SIGSTOP, renewal thread included) and freezes its links: pause model process"
	}
	return what + "; client-pause freezes the client's links while its goroutines keep running: pause model links"
}
