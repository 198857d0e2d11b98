"""For instructors and learners: answer checking for the exercise notebooks and randomized
problem sets."""
