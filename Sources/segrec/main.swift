print("segrec: command line not built yet")
