"""scripts/bench-kernel's parts: booting one clock's runs (boots), their summaries (summary), the printout (report)."""
