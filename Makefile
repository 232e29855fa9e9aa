# The two commands of the README, plus a few conveniences. The scripts do the work, so
# they also run without make (scripts/run.sh, scripts/test.sh).
.PHONY: run test test-real test-core bench bench-scale perf startup-order soak fmt lint package test-package

run:        ## install what is missing, build, start the desktop app
	./scripts/run.sh

test:       ## every test: UI, Rust, end-to-end under Xvfb (what CI runs)
	./scripts/test.sh

package:    ## the Linux packages: .deb and .rpm (release build) in target/release/bundle/
	./scripts/package.sh

test-package: package  ## installs the release .deb, starts it under Xvfb, removes it (tests/package)
	./tests/package/test-deb.sh target/release/bundle/deb/Lango_$$(node -p "require('./tauri.conf.json').version")_amd64.deb

test-real:  ## chats with a real local model (llama.cpp + SmolLM2-135M; builds it once, ~15 min)
	./scripts/test-real.sh

test-core:  ## fast loop: the GTK-free engine only
	./scripts/install-mcp-test-servers.sh
	cargo test -p lango-core -p lango-cli

bench:      ## benchmarks (release build); prints throughput and ratios
	cargo bench -p lango-core --bench store
	cargo bench -p lango-core --bench provider
	cargo bench -p lango-core --bench agent
	cargo bench -p lango-core --bench memory
	./scripts/install-mcp-test-servers.sh
	cargo bench -p lango-core --bench mcp

bench-scale: ## 1,000 × 1,000 messages vs one conversation: search, CLI, size, memory (release)
	./scripts/bench-scale.sh

perf:       ## desktop vs a blank Tauri window: cold start, idle memory; first paint of a 10k-message chat (release)
	./scripts/perf-desktop.sh

startup-order: ## regenerates src-tauri/startup-order.txt (the code a start runs, placed together by the release link)
	./scripts/startup-order.sh

soak:       ## 2,000 engine turns and 500 desktop replies with memory on: memory and latency, start vs end (release)
	./scripts/soak.sh

fmt:
	cargo fmt --all

lint:       ## cargo fmt --check, clippy, one feature set for the app alone and with the tools, actionlint (+ShellCheck) over .github/workflows
	cargo fmt --all --check && cargo clippy --workspace --all-targets --features tauri/custom-protocol -- -D warnings
	./scripts/check-feature-sets.sh
	PATH="$$(./scripts/install-lint-tools.sh):$$PATH" actionlint
