"""Where the bench finds its inputs and keeps its cache, from the environment."""
import os
from dataclasses import dataclass

# Every engine gets the same thread count.
THREADS = 2


@dataclass(frozen=True)
class Paths:
    """The repository, the model folders, the bench cache and the aural binary."""

    root: str
    """The repository (the parent of scripts/)."""
    models: str
    """CTranslate2 model folders by name: $AURALKIT_MODELS_DIR, else $XDG_CACHE_HOME/auralkit/models."""
    cache: str
    """Converted audio, ggml models and the faster-whisper venv: $AURALKIT_BENCH_CACHE, else
    $XDG_CACHE_HOME/auralkit/bench."""
    aural: str
    """The aural binary: $AURAL_BIN, else .build/release/aural in the repository."""

    @classmethod
    def from_environment(cls, root, environ):
        cache_home = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return cls(
            root=root,
            models=environ.get("AURALKIT_MODELS_DIR") or os.path.join(cache_home, "auralkit", "models"),
            cache=environ.get("AURALKIT_BENCH_CACHE") or os.path.join(cache_home, "auralkit", "bench"),
            aural=environ.get("AURAL_BIN") or os.path.join(root, ".build", "release", "aural"),
        )

    def model(self, name):
        """The CTranslate2 folder of model `name` (tiny.en, base, …)."""
        return os.path.join(self.models, name)
