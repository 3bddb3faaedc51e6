// The client's words in English, French and Italian (the games' home
// communities and the postal clubs that kept them): one table, key ->
// {en, fr, it}, and t(key, params) with {name} interpolation. The language
// is the preferences' `lang` (prefs.js: localStorage, and the account's
// preferences) or else the browser's first of fr*/it*, else English.
// Owns: the table, the language in use, <html lang>, the header's words.
// May call: nothing (prefs.js calls setLang; pages call t).

const S = {
  // Header and navigation
  'nav.play': { en: 'Play', fr: 'Jouer', it: 'Gioca' },
  'nav.turn': { en: 'Your turn', fr: 'À vous de jouer', it: 'Tocca a te' },
  'nav.games': { en: 'Your games', fr: 'Vos parties', it: 'Le tue partite' },
  'nav.analysis': { en: 'Analysis', fr: 'Analyse', it: 'Analisi' },
  'nav.players': { en: 'Players', fr: 'Joueurs', it: 'Giocatori' },
  'nav.tournaments': { en: 'Tournaments', fr: 'Tournois', it: 'Tornei' },
  'nav.howto': { en: 'How to play', fr: 'Règles du jeu', it: 'Come si gioca' },
  'hdr.guest': { en: 'guest', fr: 'invité', it: 'ospite' },
  'hdr.login': { en: 'Log in', fr: 'Se connecter', it: 'Accedi' },
  'hdr.prefs': { en: 'Preferences', fr: 'Préférences', it: 'Preferenze' },
  'hdr.online': { en: 'online', fr: 'en ligne', it: 'in linea' },
  'hdr.connecting': { en: 'connecting', fr: 'connexion', it: 'connessione' },
  'hdr.reconnecting': { en: 'reconnecting…', fr: 'reconnexion…', it: 'riconnessione…' },
  'app.loading': { en: 'Loading…', fr: 'Chargement…', it: 'Caricamento…' },
  'app.nopage': { en: 'No such page.', fr: 'Page introuvable.', it: 'Pagina inesistente.' },
  // Preferences menu
  'prefs.theme': { en: 'Theme', fr: 'Thème', it: 'Tema' },
  'prefs.board': { en: 'Board colours', fr: 'Couleurs de l’échiquier', it: 'Colori della scacchiera' },
  'prefs.ultima_pieces': { en: 'Ultima pieces', fr: 'Pièces d’Ultima', it: 'Pezzi di Ultima' },
  'prefs.lang': { en: 'Language', fr: 'Langue', it: 'Lingua' },
  'prefs.sound': { en: 'Sound', fr: 'Son', it: 'Suoni' },
  'prefs.account': { en: 'Kept for your account ({name}).', fr: 'Enregistrées pour votre compte ({name}).', it: 'Salvate per il tuo account ({name}).' },
  'prefs.browser': { en: 'Kept in this browser (log in to keep them for your account).', fr: 'Enregistrées dans ce navigateur (connectez-vous pour les garder avec votre compte).', it: 'Salvate in questo browser (accedi per salvarle nel tuo account).' },
  'prefs.notsaved': { en: 'Not saved to your account: {why}', fr: 'Non enregistré pour votre compte : {why}', it: 'Non salvato nel tuo account: {why}' },
  'choice.dark': { en: 'Dark', fr: 'Sombre', it: 'Scuro' },
  'choice.light': { en: 'Light', fr: 'Clair', it: 'Chiaro' },
  'choice.wood': { en: 'Wood', fr: 'Bois', it: 'Legno' },
  'choice.blue': { en: 'Blue', fr: 'Bleu', it: 'Blu' },
  'choice.green': { en: 'Green', fr: 'Vert', it: 'Verde' },
  'choice.grey': { en: 'Grey', fr: 'Gris', it: 'Grigio' },
  'choice.chess': { en: 'Chess pieces', fr: 'Pièces d’échecs', it: 'Pezzi degli scacchi' },
  'choice.discs': { en: 'Pictographic discs', fr: 'Disques pictographiques', it: 'Dischi pittografici' },
  // Game names (the ids of GET /api/tables)
  'game.ultima': { en: 'Ultima (1963 rules)', fr: 'Ultima (règles de 1963)', it: 'Ultima (regole del 1963)' },
  'game.ultima1968': { en: 'Ultima (1968 rules)', fr: 'Ultima (règles de 1968)', it: 'Ultima (regole del 1968)' },
  'game.yalta': { en: 'Yalta chess (three players)', fr: 'Échecs de Yalta (trois joueurs)', it: 'Scacchi di Yalta (tre giocatori)' },
  'game.ant2': { en: 'Ant Chess (two players)', fr: 'Échecs des fourmis (deux joueurs)', it: 'Scacchi delle formiche (due giocatori)' },
  'game.ant3': { en: 'Ant Chess (three players)', fr: 'Échecs des fourmis (trois joueurs)', it: 'Scacchi delle formiche (tre giocatori)' },
  // Colours
  'colour.white': { en: 'White', fr: 'Blancs', it: 'Bianco' },
  'colour.black': { en: 'Black', fr: 'Noirs', it: 'Nero' },
  'colour.red': { en: 'Red', fr: 'Rouges', it: 'Rosso' },
  'colour.green': { en: 'Green', fr: 'Verts', it: 'Verde' },
  // A seat in the game page's "view as" choice (lower case in English)
  'seat.white': { en: 'white', fr: 'Blancs', it: 'Bianco' },
  'seat.black': { en: 'black', fr: 'Noirs', it: 'Nero' },
  'seat.red': { en: 'red', fr: 'Rouges', it: 'Rosso' },
  'seat.green': { en: 'green', fr: 'Verts', it: 'Verde' },
  // Piece names (chess and Ultima)
  'piece.king': { en: 'king', fr: 'roi', it: 're' },
  'piece.queen': { en: 'queen', fr: 'dame', it: 'donna' },
  'piece.rook': { en: 'rook', fr: 'tour', it: 'torre' },
  'piece.bishop': { en: 'bishop', fr: 'fou', it: 'alfiere' },
  'piece.knight': { en: 'knight', fr: 'cavalier', it: 'cavallo' },
  'piece.pawn': { en: 'pawn', fr: 'pion', it: 'pedone' },
  'piece.withdrawer': { en: 'withdrawer', fr: 'retireur', it: 'ritiratore' },
  'piece.long_leaper': { en: 'long leaper', fr: 'sauteur', it: 'saltatore' },
  'piece.coordinator': { en: 'coordinator', fr: 'coordinateur', it: 'coordinatore' },
  'piece.immobilizer': { en: 'immobilizer', fr: 'immobiliseur', it: 'immobilizzatore' },
  'piece.chameleon': { en: 'chameleon', fr: 'caméléon', it: 'camaleonte' },
  'piece.pincer': { en: 'pincer pawn', fr: 'pion pinceur', it: 'pedone a tenaglia' },
  // Common words
  'w.game': { en: 'Game', fr: 'Jeu', it: 'Gioco' },
  'w.time': { en: 'Time', fr: 'Cadence', it: 'Tempo' },
  'w.player': { en: 'Player', fr: 'Joueur', it: 'Giocatore' },
  'w.players': { en: 'Players', fr: 'Joueurs', it: 'Giocatori' },
  'w.seats': { en: 'Seats', fr: 'Places', it: 'Posti' },
  'w.moves': { en: 'Moves', fr: 'Coups', it: 'Mosse' },
  'w.play': { en: 'Play', fr: 'Jouer', it: 'Gioca' },
  'w.cancel': { en: 'Cancel', fr: 'Annuler', it: 'Annulla' },
  'w.decline': { en: 'Decline', fr: 'Refuser', it: 'Rifiuta' },
  'w.accept': { en: 'Accept', fr: 'Accepter', it: 'Accetta' },
  'w.join': { en: 'Join', fr: 'Rejoindre', it: 'Unisciti' },
  'w.create': { en: 'Create', fr: 'Créer', it: 'Crea' },
  'w.copy': { en: 'Copy', fr: 'Copier', it: 'Copia' },
  'w.save': { en: 'Save', fr: 'Enregistrer', it: 'Salva' },
  'w.rated': { en: 'rated', fr: 'classée', it: 'valida per il punteggio' },
  'w.random': { en: 'Random', fr: 'Au hasard', it: 'A caso' },
  'w.noclock': { en: 'no clock', fr: 'sans pendule', it: 'senza orologio' },
  'w.or': { en: ' or ', fr: ' ou ', it: ' o ' },
  'w.login': { en: 'log in', fr: 'connectez-vous', it: 'accedi' },
  'w.register': { en: 'register', fr: 'inscrivez-vous', it: 'registrati' },
  'w.empty': { en: '(empty)', fr: '(libre)', it: '(libero)' },
  'w.waiting': { en: 'waiting', fr: 'en attente', it: 'in attesa' },
  'w.corr': { en: 'Correspondence', fr: 'Partie par correspondance', it: 'Partita per corrispondenza' },
  // Lobby
  'lobby.noseeks': { en: 'No open games. Create one!', fr: 'Aucune partie ouverte. Créez-en une !', it: 'Nessuna partita aperta. Creane una!' },
  'lobby.open': { en: 'Open games', fr: 'Parties ouvertes', it: 'Partite aperte' },
  'lobby.thegames': { en: 'The games', fr: 'Les jeux', it: 'I giochi' },
  'lobby.howto': { en: ' — how to play', fr: ' — règles', it: ' — come si gioca' },
  'lobby.bot': { en: 'Play the computer', fr: 'Jouer contre l’ordinateur', it: 'Gioca contro il computer' },
  'lobby.level': { en: 'Level', fr: 'Niveau', it: 'Livello' },
  'lobby.level1': { en: '1 (beginner)', fr: '1 (débutant)', it: '1 (principiante)' },
  'lobby.level8': { en: '8 (strongest)', fr: '8 (le plus fort)', it: '8 (il più forte)' },
  'lobby.youplay': { en: 'You play', fr: 'Vous jouez', it: 'Giochi con' },
  'lobby.twobots': { en: '{game} (you + 2 bots)', fr: '{game} (vous + 2 robots)', it: '{game} (tu + 2 bot)' },
  'lobby.corrtc': { en: 'Correspondence, {days}/move', fr: 'Correspondance, {days}/coup', it: 'Corrispondenza, {days}/mossa' },
  'lobby.create': { en: 'Create a game', fr: 'Créer une partie', it: 'Crea una partita' },
  'lobby.kind': { en: 'Kind of game', fr: 'Type de partie', it: 'Tipo di partita' },
  'lobby.live': { en: ' Live (clocks)', fr: ' En direct (pendules)', it: ' Dal vivo (orologi)' },
  'lobby.corr': { en: ' Correspondence (days per move)', fr: ' Par correspondance (jours par coup)', it: ' Per corrispondenza (giorni per mossa)' },
  'lobby.private': { en: ' Private: play a friend by invitation link', fr: ' Privée : jouer avec un ami par lien d’invitation', it: ' Privata: gioca con un amico tramite link di invito' },
  'lobby.ratedlabel': { en: ' Rated: the result changes both ratings', fr: ' Classée : le résultat modifie les deux classements', it: ' Valida per il punteggio: il risultato cambia entrambi i punteggi' },
  'lobby.from': { en: 'from', fr: 'de', it: 'da' },
  'lobby.to': { en: 'to', fr: 'à', it: 'a' },
  'lobby.range': { en: 'Opponents rated', fr: 'Adversaires classés', it: 'Avversari con punteggio' },
  'lobby.tc': { en: 'Time control (minutes + seconds per move)', fr: 'Cadence (minutes + secondes par coup)', it: 'Cadenza (minuti + secondi per mossa)' },
  'lobby.days': { en: 'Days per move', fr: 'Jours par coup', it: 'Giorni per mossa' },
  'lobby.incmode': { en: ' Increment mode: a bank of that many days, the same added after each move (up to four times the bank)', fr: ' Mode incrément : une réserve d’autant de jours, autant ajoutés après chaque coup (jusqu’à quatre fois la réserve)', it: ' Modalità incremento: una riserva di altrettanti giorni, aggiunti dopo ogni mossa (fino a quattro volte la riserva)' },
  'lobby.corrneed': { en: 'Correspondence games are kept for weeks under your name, so they need an account: ', fr: 'Les parties par correspondance durent des semaines sous votre nom ; il faut donc un compte : ', it: 'Le partite per corrispondenza durano settimane a tuo nome, quindi serve un account: ' },
  'lobby.corrnote': { en: 'You are told on the “Your turn” page when a move is due; vacation days stop your clocks.', fr: 'La page « À vous de jouer » vous prévient quand un coup est attendu ; les jours de vacances arrêtent vos pendules.', it: 'La pagina «Tocca a te» ti avvisa quando devi muovere; i giorni di vacanza fermano i tuoi orologi.' },
  'lobby.addbots': { en: 'Add bots', fr: 'Ajouter des robots', it: 'Aggiungi bot' },
  'lobby.filltitle': { en: 'Fill the free seats with level {level} bots and start', fr: 'Remplir les places libres avec des robots de niveau {level} et commencer', it: 'Riempi i posti liberi con bot di livello {level} e inizia' },
  'lobby.logintojoin': { en: 'Log in to join', fr: 'Connectez-vous pour jouer', it: 'Accedi per giocare' },
  'lobby.joining': { en: 'Joining…', fr: 'Connexion à la partie…', it: 'Ingresso nella partita…' },
  'lobby.seattaken': { en: 'Seat taken; waiting for the other players…', fr: 'Place prise ; en attente des autres joueurs…', it: 'Posto preso; in attesa degli altri giocatori…' },
  'lobby.nojoin': { en: 'Could not join.', fr: 'Impossible de rejoindre la partie.', it: 'Impossibile unirsi alla partita.' },
  'lobby.startingbots': { en: 'Starting with bots…', fr: 'Démarrage avec des robots…', it: 'Avvio con i bot…' },
  'lobby.nobots': { en: 'Could not add bots.', fr: 'Impossible d’ajouter des robots.', it: 'Impossibile aggiungere i bot.' },
  'lobby.starting': { en: 'Starting…', fr: 'Démarrage…', it: 'Avvio…' },
  'lobby.nostart': { en: 'Could not start the game.', fr: 'Impossible de commencer la partie.', it: 'Impossibile iniziare la partita.' },
  'lobby.nocreate': { en: 'Could not create the game.', fr: 'Impossible de créer la partie.', it: 'Impossibile creare la partita.' },
  'lobby.invite': { en: 'Invitation link: send it to your opponent', fr: 'Lien d’invitation : envoyez-le à votre adversaire', it: 'Link di invito: invialo al tuo avversario' },
  'lobby.ratedgame': { en: 'rated game', fr: 'partie classée', it: 'partita valida per il punteggio' },
  // Game page
  'room.title': { en: 'Game {id}', fr: 'Partie {id}', it: 'Partita {id}' },
  'room.nosuch': { en: 'No such game.', fr: 'Partie introuvable.', it: 'Partita inesistente.' },
  'room.aborted': { en: 'Game aborted', fr: 'Partie annulée', it: 'Partita annullata' },
  'room.draw': { en: 'Draw', fr: 'Nulle', it: 'Patta' },
  'room.wins': { en: '{name} wins', fr: '{name} gagne', it: 'Vince {name}' },
  'room.pass': { en: 'Pass', fr: 'Passer', it: 'Passa' },
  'room.canceldraw': { en: 'Cancel draw offer', fr: 'Retirer la proposition de nulle', it: 'Ritira la proposta di patta' },
  'room.acceptdraw': { en: 'Accept draw', fr: 'Accepter la nulle', it: 'Accetta la patta' },
  'room.offerdraw': { en: 'Offer draw', fr: 'Proposer la nulle', it: 'Proponi la patta' },
  'room.abort': { en: 'Abort', fr: 'Annuler la partie', it: 'Annulla la partita' },
  'room.resign': { en: 'Resign', fr: 'Abandonner', it: 'Abbandona' },
  'room.resignq': { en: 'Resign this game?', fr: 'Abandonner cette partie ?', it: 'Abbandonare questa partita?' },
  'room.gorematch': { en: 'Go to the rematch', fr: 'Aller à la revanche', it: 'Vai alla rivincita' },
  'room.analysis': { en: 'Analysis board', fr: 'Échiquier d’analyse', it: 'Scacchiera di analisi' },
  'room.analysisnoeng': { en: 'Analysis board (no engine)', fr: 'Échiquier d’analyse (sans moteur)', it: 'Scacchiera di analisi (senza motore)' },
  'room.drawby': { en: 'Draw offered by {names}', fr: 'Nulle proposée par {names}', it: 'Patta proposta da {names}' },
  'room.acctb': { en: 'Accept takeback', fr: 'Accepter l’annulation du coup', it: 'Accetta di ritirare la mossa' },
  'room.dectb': { en: 'Decline takeback', fr: 'Refuser l’annulation du coup', it: 'Rifiuta di ritirare la mossa' },
  'room.tbasked': { en: 'Takeback asked…', fr: 'Annulation du coup demandée…', it: 'Ritiro della mossa richiesto…' },
  'room.canceltb': { en: 'Cancel takeback', fr: 'Retirer la demande', it: 'Annulla la richiesta' },
  'room.tb': { en: 'Takeback', fr: 'Reprendre le coup', it: 'Ritira la mossa' },
  'room.tbdeclined': { en: 'Takeback declined', fr: 'Annulation du coup refusée', it: 'Ritiro della mossa rifiutato' },
  'room.rmasked': { en: 'Rematch asked…', fr: 'Revanche demandée…', it: 'Rivincita richiesta…' },
  'room.cancelrm': { en: 'Cancel rematch', fr: 'Retirer la revanche', it: 'Annulla la rivincita' },
  'room.acceptrm': { en: 'Accept rematch', fr: 'Accepter la revanche', it: 'Accetta la rivincita' },
  'room.rematch': { en: 'Rematch', fr: 'Revanche', it: 'Rivincita' },
  'room.rmdeclined': { en: 'Rematch declined', fr: 'Revanche refusée', it: 'Rivincita rifiutata' },
  'room.newsame': { en: 'New game, same settings', fr: 'Nouvelle partie, mêmes réglages', it: 'Nuova partita, stesse impostazioni' },
  'room.confirm': { en: 'Confirm', fr: 'Confirmer', it: 'Conferma' },
  'room.moveby': { en: 'Move by {date}', fr: 'Jouer avant le {date}', it: 'Muovere entro il {date}' },
  'room.back': { en: 'Back {date}', fr: 'De retour le {date}', it: 'Di ritorno il {date}' },
  'room.soundon': { en: 'Sound on', fr: 'Son activé', it: 'Audio attivo' },
  'room.soundoff': { en: 'Sound off', fr: 'Son coupé', it: 'Audio spento' },
  'room.mute': { en: 'Mute the game sounds', fr: 'Couper les sons de la partie', it: 'Disattiva i suoni della partita' },
  'room.unmute': { en: 'Play the game sounds', fr: 'Activer les sons de la partie', it: 'Attiva i suoni della partita' },
  'room.flip': { en: 'Flip board', fr: 'Tourner l’échiquier', it: 'Gira la scacchiera' },
  'room.fliptitle': { en: 'Turn the board to the next seat', fr: 'Tourner l’échiquier vers le joueur suivant', it: 'Gira la scacchiera verso il giocatore successivo' },
  'room.copytitle': { en: 'Copy the position string', fr: 'Copier la chaîne de position', it: 'Copia la stringa della posizione' },
  'room.copied': { en: 'Position copied.', fr: 'Position copiée.', it: 'Posizione copiata.' },
  'room.rules': { en: 'rules', fr: 'règles', it: 'regole' },
  'chat.say': { en: 'Say something…', fr: 'Écrivez quelque chose…', it: 'Scrivi qualcosa…' },
  'chat.label': { en: 'Chat message', fr: 'Message', it: 'Messaggio' },
  'chat.players': { en: 'Chat with your opponents', fr: 'Discussion avec vos adversaires', it: 'Chat con i tuoi avversari' },
  'chat.spectators': { en: 'Spectators’ chat (the players do not see it)', fr: 'Discussion des spectateurs (les joueurs ne la voient pas)', it: 'Chat degli spettatori (i giocatori non la vedono)' },
  'play.type': { en: 'Type a move', fr: 'Saisir un coup', it: 'Scrivi una mossa' },
  'play.typeeg': { en: 'Type a move, e.g. e2-e4', fr: 'Coup, p. ex. e2-e4', it: 'Mossa, es. e2-e4' },
  'play.legal': { en: 'Legal moves', fr: 'Coups légaux', it: 'Mosse legali' },
  'play.legaln': { en: 'Legal moves ({n})', fr: 'Coups légaux ({n})', it: 'Mosse legali ({n})' },
  'play.watching': { en: 'You are watching this game.', fr: 'Vous regardez cette partie.', it: 'Stai guardando questa partita.' },
  'confirm.play': { en: 'Play {move}?', fr: 'Jouer {move} ?', it: 'Giocare {move}?' },
  'room.rotate': { en: 'Rotate board', fr: 'Tourner l’échiquier', it: 'Ruota la scacchiera' },
  'bars.you': { en: ' (you)', fr: ' (vous)', it: ' (tu)' },
  'confirm.corr': { en: 'Confirm moves (correspondence)', fr: 'Confirmer les coups (correspondance)', it: 'Conferma le mosse (corrispondenza)' },
  'confirm.live': { en: 'Confirm moves (live games)', fr: 'Confirmer les coups (parties en direct)', it: 'Conferma le mosse (partite dal vivo)' },
  'life.online': { en: ' online · ', fr: ' en ligne · ', it: ' in linea · ' },
  'life.beingplayed': { en: ' being played', fr: ' en cours', it: ' in corso' },
  'life.nowatch': { en: 'No game is being played right now.', fr: 'Aucune partie en cours pour le moment.', it: 'Nessuna partita in corso al momento.' },
  'life.player1': { en: '{n} player', fr: '{n} joueur', it: '{n} giocatore' },
  'life.playersn': { en: '{n} players', fr: '{n} joueurs', it: '{n} giocatori' },
  'life.game1': { en: '{n} game', fr: '{n} partie', it: '{n} partita' },
  'life.gamesn': { en: '{n} games', fr: '{n} parties', it: '{n} partite' },
  'life.watchthis': { en: 'Watch this game', fr: 'Regarder cette partie', it: 'Guarda questa partita' },
  'life.username': { en: 'username', fr: 'nom d’utilisateur', it: 'nome utente' },
  // Result reasons (the server's codes; its English words otherwise)
  'reason.checkmate': { en: 'checkmate', fr: 'échec et mat', it: 'scacco matto' },
  'reason.stalemate': { en: 'stalemate', fr: 'pat', it: 'stallo' },
  'reason.repetition': { en: 'threefold repetition', fr: 'triple répétition', it: 'triplice ripetizione' },
  'reason.ply_limit': { en: '150 plies without capture or pawn move', fr: '150 demi-coups sans prise ni coup de pion', it: '150 semimosse senza catture né mosse di pedone' },
  'reason.centre': { en: 'queen reached the centre', fr: 'la dame a atteint le centre', it: 'la donna ha raggiunto il centro' },
  'reason.journey': { en: 'king completed its journey', fr: 'le roi a achevé son voyage', it: 'il re ha completato il suo viaggio' },
  'reason.last_queen': { en: 'last queen standing', fr: 'dernière dame en jeu', it: 'ultima donna rimasta' },
  'reason.resignation': { en: 'resignation', fr: 'abandon', it: 'abbandono' },
  'reason.timeout': { en: 'time out', fr: 'temps dépassé', it: 'tempo scaduto' },
  'reason.abandonment': { en: 'abandonment', fr: 'partie quittée', it: 'partita abbandonata' },
  'reason.agreement': { en: 'draw by agreement', fr: 'nulle par accord mutuel', it: 'patta d’accordo' },
  'reason.aborted': { en: 'game aborted', fr: 'partie annulée', it: 'partita annullata' },
  'bars.firstmove': { en: 'first move: clock not running', fr: 'premier coup : pendule arrêtée', it: 'prima mossa: orologio fermo' },
  'bars.bank': { en: 'bank {left}', fr: 'réserve {left}', it: 'riserva {left}' },
  'bars.vacation': { en: 'on vacation until {date}', fr: 'en vacances jusqu’au {date}', it: 'in vacanza fino al {date}' },
  'corr.day1': { en: '{n} day', fr: '{n} jour', it: '{n} giorno' },
  'corr.daysn': { en: '{n} days', fr: '{n} jours', it: '{n} giorni' },
  'corr.permove': { en: '{days}/move', fr: '{days}/coup', it: '{days}/mossa' },
  'corr.inc': { en: '{days} + {inc}/move (max {cap})', fr: '{days} + {inc}/coup (max. {cap})', it: '{days} + {inc}/mossa (max {cap})' },
  'corr.up': { en: 'time is up', fr: 'temps écoulé', it: 'tempo scaduto' },
  'corr.underminute': { en: 'under a minute', fr: 'moins d’une minute', it: 'meno di un minuto' },
  // Your turn, your games
  'turn.timeleft': { en: 'Time left', fr: 'Temps restant', it: 'Tempo rimasto' },
  'turn.need': { en: 'Correspondence games need an account: ', fr: 'Les parties par correspondance demandent un compte : ', it: 'Le partite per corrispondenza richiedono un account: ' },
  'turn.need2': { en: ' to see the games waiting for your move.', fr: ' pour voir les parties qui attendent votre coup.', it: ' per vedere le partite che attendono la tua mossa.' },
  'turn.none': { en: 'No game is waiting for your move.', fr: 'Aucune partie n’attend votre coup.', it: 'Nessuna partita attende la tua mossa.' },
  'games.none': { en: 'No games in progress. Start one from the lobby.', fr: 'Aucune partie en cours. Commencez-en une depuis l’accueil.', it: 'Nessuna partita in corso. Iniziane una dalla sala.' },
  // Log in, profile
  'acct.register': { en: 'Register', fr: 'S’inscrire', it: 'Registrati' },
  'acct.welcome': { en: 'Welcome!', fr: 'Bienvenue !', it: 'Benvenuto!' },
  'acct.username': { en: 'Username', fr: 'Nom d’utilisateur', it: 'Nome utente' },
  'acct.password': { en: 'Password', fr: 'Mot de passe', it: 'Password' },
  'acct.have': { en: 'I have an account', fr: 'J’ai un compte', it: 'Ho già un account' },
  'acct.create': { en: 'Create an account', fr: 'Créer un compte', it: 'Crea un account' },
  'acct.forgot': { en: 'Forgot your password?', fr: 'Mot de passe oublié ?', it: 'Password dimenticata?' },
  'acct.loggedout': { en: 'Logged out.', fr: 'Déconnecté.', it: 'Disconnesso.' },
  'acct.logout': { en: 'Log out', fr: 'Se déconnecter', it: 'Esci' },
  'acct.profile': { en: 'Profile', fr: 'Profil', it: 'Profilo' },
  'acct.guest': { en: 'You play as a guest. ', fr: 'Vous jouez en invité. ', it: 'Giochi come ospite. ' },
  'acct.guest2': { en: ' for correspondence games, a record and vacation.', fr: ' pour les parties par correspondance, un bilan et des vacances.', it: ' per le partite per corrispondenza, un bilancio e le vacanze.' },
  'acct.saved': { en: 'Saved.', fr: 'Enregistré.', it: 'Salvato.' },
  'acct.shown': { en: 'Name shown to other players', fr: 'Nom affiché aux autres joueurs', it: 'Nome mostrato agli altri giocatori' },
  'acct.playerpage': { en: 'Your player page: ratings and every game', fr: 'Votre page de joueur : classements et toutes vos parties', it: 'La tua pagina di giocatore: punteggi e tutte le partite' },
  'acct.inprogress': { en: 'Games in progress', fr: 'Parties en cours', it: 'Partite in corso' },
  'acct.vacstart': { en: 'Start vacation', fr: 'Partir en vacances', it: 'Inizia le vacanze' },
  'acct.vacend': { en: 'End vacation now', fr: 'Finir les vacances', it: 'Termina le vacanze' },
  'acct.vacation': { en: 'Vacation', fr: 'Vacances', it: 'Vacanze' },
  'acct.vacnote': { en: 'While you are on vacation your correspondence clocks stop. 30 days a year; a day started counts whole.', fr: 'Pendant vos vacances, vos pendules de correspondance s’arrêtent. 30 jours par an ; un jour entamé compte en entier.', it: 'Durante le vacanze i tuoi orologi per corrispondenza si fermano. 30 giorni all’anno; un giorno iniziato conta per intero.' },
  'acct.loggedin': { en: 'Logged in as {name}.', fr: 'Connecté en tant que {name}.', it: 'Accesso effettuato come {name}.' },
  'acct.onvac': { en: 'On vacation until {date} ({left} left).', fr: 'En vacances jusqu’au {date} (encore {left}).', it: 'In vacanza fino al {date} (ancora {left}).' },
  'acct.novac': { en: 'Not on vacation.', fr: 'Pas en vacances.', it: 'Non in vacanza.' },
  'acct.daysleft': { en: '{days} left this year.', fr: 'Il reste {days} cette année.', it: 'Restano {days} quest’anno.' },
  'acct.enjoy': { en: 'Enjoy your vacation.', fr: 'Bonnes vacances !', it: 'Buone vacanze!' },
  'acct.back': { en: 'Welcome back.', fr: 'Bon retour parmi nous.', it: 'Bentornato.' },
  'acct.days': { en: 'Days', fr: 'Jours', it: 'Giorni' },
  // E-mail settings and the password pages (mail.js)
  'mail.email': { en: 'E-mail', fr: 'Courriel', it: 'E-mail' },
  'mail.remind': { en: 'Remind me after this many days without a move in a correspondence game (0: never)', fr: 'Me le rappeler après ce nombre de jours sans coup dans une partie par correspondance (0 : jamais)', it: 'Ricordamelo dopo questo numero di giorni senza mosse in una partita per corrispondenza (0: mai)' },
  'mail.savenotices': { en: 'Save notices', fr: 'Enregistrer les avis', it: 'Salva gli avvisi' },
  'mail.address': { en: 'Address (never shown to other players)', fr: 'Adresse (jamais montrée aux autres joueurs)', it: 'Indirizzo (mai mostrato agli altri giocatori)' },
  'mail.newaddress': { en: 'A new address (never shown to other players)', fr: 'Une nouvelle adresse (jamais montrée aux autres joueurs)', it: 'Un nuovo indirizzo (mai mostrato agli altri giocatori)' },
  'mail.sendconfirm': { en: 'Send a confirmation link', fr: 'Envoyer un lien de confirmation', it: 'Invia un link di conferma' },
  'mail.youraddress': { en: 'Your address: {address}', fr: 'Votre adresse : {address}', it: 'Il tuo indirizzo: {address}' },
  'mail.noaddress': { en: 'No confirmed address: nothing is sent to you by e-mail.', fr: 'Aucune adresse confirmée : rien ne vous est envoyé par courriel.', it: 'Nessun indirizzo confermato: non ti viene inviato nulla per e-mail.' },
  'mail.notices': { en: 'Notices by e-mail', fr: 'Avis par courriel', it: 'Avvisi per e-mail' },
  'mail.confirmtitle': { en: 'Confirm your address', fr: 'Confirmer votre adresse', it: 'Conferma il tuo indirizzo' },
  'mail.newpwtitle': { en: 'Choose a new password', fr: 'Choisir un nouveau mot de passe', it: 'Scegli una nuova password' },
  'mail.newpw': { en: 'New password (8 to 128 characters)', fr: 'Nouveau mot de passe (8 à 128 caractères)', it: 'Nuova password (da 8 a 128 caratteri)' },
  'mail.changepw': { en: 'Change the password', fr: 'Changer le mot de passe', it: 'Cambia la password' },
  'mail.forgotnote': { en: 'Give your username or your confirmed e-mail address: a link to choose a new password is sent to that address.', fr: 'Indiquez votre nom d’utilisateur ou votre adresse confirmée : un lien pour choisir un nouveau mot de passe y sera envoyé.', it: 'Indica il tuo nome utente o il tuo indirizzo e-mail confermato: ti verrà inviato un link per scegliere una nuova password.' },
  'mail.login': { en: 'Username or e-mail address', fr: 'Nom d’utilisateur ou adresse électronique', it: 'Nome utente o indirizzo e-mail' },
  'mail.sendlink': { en: 'Send a link', fr: 'Envoyer un lien', it: 'Invia un link' },
  // Conditional moves (room/cond.js)
  'cond.title': { en: 'Conditional moves', fr: 'Coups conditionnels', it: 'Mosse condizionali' },
  'cond.save': { en: 'Save lines', fr: 'Enregistrer les lignes', it: 'Salva le linee' },
  'cond.clear': { en: 'Clear all', fr: 'Tout effacer', it: 'Cancella tutto' },
  'cond.none': { en: 'No conditional moves stored.', fr: 'Aucun coup conditionnel enregistré.', it: 'Nessuna mossa condizionale salvata.' },
  'cond.note': { en: 'If your opponent plays the first move of a line, your answer is played at once, and the line goes on.', fr: 'Si votre adversaire joue le premier coup d’une ligne, votre réponse est jouée aussitôt, et la ligne continue.', it: 'Se il tuo avversario gioca la prima mossa di una linea, la tua risposta viene giocata subito e la linea prosegue.' },
  // Other pages' titles and common headings
  'tour.title': { en: 'Tournaments', fr: 'Tournois', it: 'Tornei' },
  'tour.new': { en: 'New tournament', fr: 'Nouveau tournoi', it: 'Nuovo torneo' },
  'tour.name': { en: 'Name', fr: 'Nom', it: 'Nome' },
  'tour.entrants': { en: 'Entrants', fr: 'Participants', it: 'Partecipanti' },
  'tour.tc': { en: 'Time control', fr: 'Cadence', it: 'Cadenza' },
  'tour.standings': { en: 'Standings', fr: 'Classement', it: 'Classifica' },
  'tour.crosstable': { en: 'Crosstable', fr: 'Grille', it: 'Tabellone' },
  'tour.schedule': { en: 'Schedule', fr: 'Calendrier', it: 'Calendario' },
  'tour.open': { en: 'Open for entry', fr: 'Inscriptions ouvertes', it: 'Iscrizioni aperte' },
  'tour.running': { en: 'Running', fr: 'En cours', it: 'In corso' },
  'tour.finished': { en: 'Finished', fr: 'Terminés', it: 'Conclusi' },
  'tour.create': { en: 'Create a tournament', fr: 'Créer un tournoi', it: 'Crea un torneo' },
  'tour.intro': { en: 'Correspondence round robins, as the postal clubs played them: every game starts at once, the crosstable fills as results come in.', fr: 'Tournois toutes rondes par correspondance, comme les jouaient les clubs postaux : toutes les parties commencent en même temps, la grille se remplit au fil des résultats.', it: 'Gironi all’italiana per corrispondenza, come li giocavano i circoli postali: tutte le partite iniziano insieme, il tabellone si riempie con i risultati.' },
  'tour.noneopen': { en: 'No tournament is open for entry.', fr: 'Aucun tournoi n’est ouvert aux inscriptions.', it: 'Nessun torneo è aperto alle iscrizioni.' },
  'tour.noneyet': { en: 'None yet.', fr: 'Aucun pour l’instant.', it: 'Nessuno per ora.' },
  'tour.single': { en: 'Single (once each)', fr: 'Simple (une fois chacun)', it: 'Singolo (una volta ciascuno)' },
  'tour.double': { en: 'Double (twice: each colour)', fr: 'Double (deux fois : chaque couleur)', it: 'Doppio (due volte: ogni colore)' },
  'tour.atmost': { en: 'Entrants (at most)', fr: 'Participants (au plus)', it: 'Partecipanti (al massimo)' },
  'tour.rr': { en: 'Round robin', fr: 'Toutes rondes', it: 'Girone all’italiana' },
  'tour.days': { en: 'Days per move (or initial bank)', fr: 'Jours par coup (ou réserve initiale)', it: 'Giorni per mossa (o riserva iniziale)' },
  'tour.inc': { en: 'Days added per move (0: none; cap 60 days)', fr: 'Jours ajoutés par coup (0 : aucun ; 60 jours au plus)', it: 'Giorni aggiunti per mossa (0: nessuno; massimo 60 giorni)' },
  'tour.start': { en: 'Start date (empty: when full)', fr: 'Date de début (vide : une fois complet)', it: 'Data di inizio (vuota: quando è completo)' },
  'tour.invite': { en: 'Invitation list', fr: 'Liste d’invités', it: 'Lista degli invitati' },
  'tour.leave': { en: 'Leave', fr: 'Se retirer', it: 'Ritirati' },
  'tour.startnow': { en: 'Start now', fr: 'Lancer maintenant', it: 'Avvia ora' },
  'tour.cancel': { en: 'Cancel the tournament', fr: 'Annuler le tournoi', it: 'Annulla il torneo' },
  'tour.withdrawq': { en: 'Withdraw? Your unfinished games are forfeited.', fr: 'Abandonner le tournoi ? Vos parties non terminées seront perdues par forfait.', it: 'Ritirarsi? Le tue partite non finite saranno perse a tavolino.' },
  'tour.withdraw': { en: 'Withdraw', fr: 'Abandonner le tournoi', it: 'Ritirati dal torneo' },
  'tour.toenter': { en: ' to enter.', fr: ' pour participer.', it: ' per partecipare.' },
  'tour.nobody': { en: 'Nobody has entered yet.', fr: 'Personne ne s’est encore inscrit.', it: 'Nessuno si è ancora iscritto.' },
  'tour.cancelled': { en: 'Cancelled.', fr: 'Annulé.', it: 'Annullato.' },
  'tour.crosslater': { en: 'The crosstable appears at the start.', fr: 'La grille apparaît au début du tournoi.', it: 'Il tabellone appare all’inizio del torneo.' },
  'tour.schedlater': { en: 'Every game is drawn and started at once at the start.', fr: 'Toutes les parties sont tirées et lancées ensemble au début.', it: 'Tutte le partite sono sorteggiate e avviate insieme all’inizio.' },
  'tour.score': { en: 'Score', fr: 'Points', it: 'Punti' },
  'tour.tiebreak': { en: 'Tie-break (pairwise SB)', fr: 'Départage (SB par paires)', it: 'Spareggio (SB a coppie)' },
  'tour.played': { en: 'Played', fr: 'Jouées', it: 'Giocate' },
  'tour.round': { en: 'Round {r}', fr: 'Ronde {r}', it: 'Turno {r}' },
  'lb.intro': { en: 'Players rated in the last three months whose rating is no longer provisional.', fr: 'Joueurs classés au cours des trois derniers mois dont le classement n’est plus provisoire.', it: 'Giocatori con partite valutate negli ultimi tre mesi il cui punteggio non è più provvisorio.' },
  'lb.empty': { en: 'Nobody on this leaderboard yet.', fr: 'Personne dans ce classement pour l’instant.', it: 'Ancora nessuno in questa classifica.' },
  'pl.kind': { en: 'Kind', fr: 'Type', it: 'Tipo' },
  'pl.opponent': { en: 'Opponent', fr: 'Adversaire', it: 'Avversario' },
  'pl.nomatch': { en: 'No finished games match.', fr: 'Aucune partie terminée ne correspond.', it: 'Nessuna partita conclusa corrisponde.' },
  'pl.download': { en: 'Download these games (PGN)', fr: 'Télécharger ces parties (PGN)', it: 'Scarica queste partite (PGN)' },
  'pl.everygame': { en: 'Every game', fr: 'Tous les jeux', it: 'Tutti i giochi' },
  'pl.norated': { en: 'No rated games yet.', fr: 'Aucune partie classée pour l’instant.', it: 'Ancora nessuna partita valida per il punteggio.' },
  'lb.title': { en: 'Leaderboards', fr: 'Classements', it: 'Classifiche' },
  'lb.rating': { en: 'Rating', fr: 'Classement Elo', it: 'Punteggio' },
  'lb.games': { en: 'Games', fr: 'Parties', it: 'Partite' },
  'pl.ratings': { en: 'Ratings', fr: 'Classements', it: 'Punteggi' },
  'pl.result': { en: 'Result', fr: 'Résultat', it: 'Risultato' },
  'pl.date': { en: 'Date', fr: 'Date', it: 'Data' },
  'pl.show': { en: 'Show', fr: 'Afficher', it: 'Mostra' },
  'pl.record': { en: 'Record', fr: 'Bilan', it: 'Bilancio' },
  'pl.won': { en: 'Won', fr: 'Gagnées', it: 'Vinte' },
  'pl.lost': { en: 'Lost', fr: 'Perdues', it: 'Perse' },
  'pl.drawn': { en: 'Drawn', fr: 'Nulles', it: 'Patte' },
  'pl.playing': { en: 'Playing now', fr: 'En cours', it: 'In corso' },
  'pl.newer': { en: '← Newer', fr: '← Plus récentes', it: '← Più recenti' },
  'pl.older': { en: 'Older →', fr: 'Plus anciennes →', it: 'Meno recenti →' },
  'an.title': { en: 'Analysis board', fr: 'Échiquier d’analyse', it: 'Scacchiera di analisi' },
  'an.position': { en: 'Position string', fr: 'Chaîne de position', it: 'Stringa della posizione' },
  'an.copy': { en: 'Copy position', fr: 'Copier la position', it: 'Copia la posizione' },
  'an.download': { en: 'Download PGN', fr: 'Télécharger le PGN', it: 'Scarica il PGN' },
  'an.from': { en: 'Start from a position string (empty: the set-up)', fr: 'Partir d’une chaîne de position (vide : la position initiale)', it: 'Parti da una stringa di posizione (vuota: la posizione iniziale)' },
  'an.setup': { en: 'Set up', fr: 'Placer', it: 'Imposta' },
  'an.engine': { en: ' Engine', fr: ' Moteur', it: ' Motore' },
  'howto.title': { en: 'How to play', fr: 'Règles du jeu', it: 'Come si gioca' },
  'howto.pieces': { en: 'Pieces', fr: 'Pièces', it: 'Pezzi' },
  'howto.viewas': { en: 'View as', fr: 'Voir du côté', it: 'Visto da' },
  'life.watch': { en: 'Games being played', fr: 'Parties en cours', it: 'Partite in corso' },
  'life.challenges': { en: 'Challenges', fr: 'Défis', it: 'Sfide' },
  'life.challenge': { en: 'Challenge', fr: 'Défier', it: 'Sfida' },
  'life.challengeplayer': { en: 'Challenge a player', fr: 'Défier un joueur', it: 'Sfida un giocatore' },
  'life.needacct': { en: 'Challenges are between accounts: ', fr: 'Les défis se font entre comptes : ', it: 'Le sfide sono tra account: ' },
  'life.needacct2': { en: ' to challenge a player by name.', fr: ' pour défier un joueur par son nom.', it: ' per sfidare un giocatore per nome.' },
  'tour.direct': { en: 'You direct it: you may start it early, remove an entrant before the start or cancel it.', fr: 'Vous le dirigez : vous pouvez le lancer plus tôt, retirer un participant avant le début ou l’annuler.', it: 'Lo dirigi tu: puoi avviarlo prima, togliere un partecipante prima dell’inizio o annullarlo.' },
  'tour.need': { en: 'Tournaments need an account: ', fr: 'Les tournois demandent un compte : ', it: 'I tornei richiedono un account: ' },
  'pl.allkinds': { en: 'Live and correspondence', fr: 'En direct et par correspondance', it: 'Dal vivo e per corrispondenza' },
  'pl.live': { en: 'Live', fr: 'En direct', it: 'Dal vivo' },
  'pl.anyresult': { en: 'Any result', fr: 'Tout résultat', it: 'Qualsiasi risultato' },
  'life.rated': { en: ' Rated', fr: ' Classée', it: ' Valida per il punteggio' },
};

export const LANGS = { en: 'English', fr: 'Français', it: 'Italiano' };

// The browser's choice: its first language that is French or Italian,
// else English (navigator.languages, as the browser's settings give it).
export function browserLang() {
  const list = (navigator.languages && navigator.languages.length) ? navigator.languages : [navigator.language || 'en'];
  for (const l of list) {
    const p = String(l).slice(0, 2).toLowerCase();
    if (p === 'fr' || p === 'it' || p === 'en') return p;
  }
  return 'en';
}

// The stored choice ('chameleon.prefs'.lang, which prefs.js keeps), read
// here too so the first words drawn are already in it.
function storedLang() {
  try {
    const l = (JSON.parse(localStorage.getItem('chameleon.prefs') || '{}') || {}).lang;
    return Object.hasOwn(LANGS, l) ? l : null;
  } catch { return null; }
}

let lang = storedLang() || browserLang();

export const currentLang = () => lang;

// A key's words in the language in use, {name} replaced from params; the
// English when a language lacks it; the key itself when unknown.
export function t(key, params) {
  const e = S[key];
  let s = e ? (e[lang] ?? e.en) : key;
  if (params) s = s.replace(/\{(\w+)\}/g, (m, k) => (params[k] ?? m));
  return s;
}

// t() for a key that may be missing (a game id from the server): null then.
export function tMaybe(key) { return S[key] ? t(key) : null; }

// The static words of index.html ([data-i18n]: text; data-i18n-title:
// title and aria-label), and <html lang>.
export function translateStatic() {
  document.documentElement.lang = lang;
  for (const e of document.querySelectorAll('[data-i18n]')) {
    const first = [...e.childNodes].find((n) => n.nodeType === 3);
    if (first) first.textContent = `${t(e.dataset.i18n)} `.trimEnd() + (e.children.length ? ' ' : '');
    else e.textContent = t(e.dataset.i18n);
  }
  for (const e of document.querySelectorAll('[data-i18n-title]')) {
    e.title = t(e.dataset.i18nTitle);
    e.setAttribute('aria-label', t(e.dataset.i18nTitle));
  }
}

// A new language (the preferences menu): pages and the header draw their
// words when mounted, so the caller reloads the page.
export function setLang(l) {
  const next = Object.hasOwn(LANGS, l) ? l : browserLang();
  if (next === lang) return false;
  lang = next;
  return true;
}

window.chameleonI18n = { S, t, currentLang }; // for the browser tests
