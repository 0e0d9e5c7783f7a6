# Shadows PyTorch in bench/run-suite's flow tests: `import torch` fails as on a
# machine without it, so the runner's no-PyTorch path runs wherever the test does.
raise ImportError("no module named torch (test stand-in)")
