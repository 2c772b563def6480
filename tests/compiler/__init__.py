"""The compiler as a whole: adversarial corpus, fuzzing, budgets, caches, fast paths."""
