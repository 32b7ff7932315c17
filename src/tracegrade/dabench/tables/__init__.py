"""Stage 3: evaluate a run task by task and write the four tables; read evaluated runs back."""
