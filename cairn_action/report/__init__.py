"""The report (the unit of evidence), reading and writing it, and the leaderboard."""
