"""What the book's pages use besides the formulas: display helpers, figures in one style,
reproduction tables."""
