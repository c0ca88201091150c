# lockstorm make targets. `make demo` and `make test` install what is missing.
GO      ?= go
PKGS    := ./...

.PHONY: deps demo test test-long bench lint build

deps:
	@./scripts/install-deps.sh

build:
	$(GO) build -o bin/lockstorm ./cmd/lockstorm

## demo: the main job on the local provider
demo: deps
	$(GO) run ./cmd/lockstorm demo

## test: every test, against real redis-server processes
test: deps
	$(GO) vet $(PKGS)
	$(GO) test -short -count=1 -timeout 40m $(PKGS)

## test-long: every test including the long catalogue runs (no -short)
test-long: deps
	$(GO) test -count=1 -timeout 90m $(PKGS)

## bench: benchmarks, numbers on stdout
bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 2s $(PKGS)

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	$(GO) vet $(PKGS)
