from guilens.cli import main

main()
