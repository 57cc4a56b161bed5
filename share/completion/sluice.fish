# fish completion for sluice(1), as "sluice completion fish" prints it.
# sluice __complete -d gives WORD<tab>WHAT, which fish shows as is.
function __sluice_complete
	set -l words (commandline -opc) (commandline -ct)
	set -e words[1]
	for w in (command sluice __complete -d -- $words 2>/dev/null)
		if test "$w" = :files
			__fish_complete_path (commandline -ct)
		else
			echo $w
		end
	end
end
complete -c sluice -f -a '(__sluice_complete)'
