from agent_cli.cli.entry import main

main()
