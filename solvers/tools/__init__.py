"""Outside programs: command templates (:mod:`.templates`), the tour-program skeleton
(:mod:`.tour_programs`) and the bridges to DIMACS SAT solvers, ILP programs, exact-cover
programs, LKH-3, linkern, Concorde and any ``--hcp-cmd`` program."""
